"""
The GPU check of KernelBench's local back end, for a machine with torch, CUDA, nvcc and ninja (node
is not needed): starts the real worker (adapters/tasks/kernelbench/python/kernel_eval_worker.py)
as the engine starts it with the sandbox off, sends it the engine's requests for the shipped `relu`
problem, and writes every answer to <out>/results.json as it comes, then a summary of what the
TypeScript side reads from each (kernel-score.ts: compiled, correctness, metadata, runtime,
runtime_stats) and whether it is what that candidate should give.

    python3 gpu_check.py --out DIR [--cache-dir DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
KERNEL_DIR = os.path.join(REPO, "benchmarks", "kernelbench")
WORKER = os.path.join(REPO, "adapters", "tasks", "kernelbench", "python", "kernel_eval_worker.py")
SHARED = os.path.join(REPO, "adapters", "tasks", "llm4ad", "python")


def read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def reference_as_candidate(reference: str) -> str:
    """The suite's starting candidate (kernelbench-suite.ts referenceCandidate): the reference itself."""
    return f"{reference.rstrip()}\n\n\nclass ModelNew(Model):\n    \"\"\"The reference itself: replace with custom CUDA kernels to make it faster.\"\"\"\n\n    pass\n"


def expectations(reference: str) -> list[tuple[str, str, float, dict]]:
    """(name, candidate source, time limit in s, what the result must say), in the order they run."""
    stub = os.path.join(KERNEL_DIR, "stub")
    return [
        ("correct_inline_cuda", read(os.path.join(stub, "relu.inline_cuda.py")), 240, {"compiled": True, "correctness": True, "timed": True, "build_cached": False}),
        ("incorrect_inline_cuda", read(os.path.join(HERE, "relu.wrong_inline_cuda.py")), 240, {"compiled": True, "correctness": False, "metadata_has": "max_difference"}),
        ("correct_inline_cuda_again", read(os.path.join(stub, "relu.inline_cuda.py")), 240, {"compiled": True, "correctness": True, "timed": True, "build_cached": True}),
        ("reference_itself", reference_as_candidate(reference), 120, {"compiled": True, "correctness": True, "timed": True}),
        ("wrong_shape", read(os.path.join(HERE, "relu.wrong_shape.py")), 120, {"compiled": True, "correctness": False, "metadata_has": "correctness_issue"}),
        ("hangs", read(os.path.join(HERE, "relu.hangs.py")), 20, {"compiled": False, "correctness": False, "metadata_has": "timeout_error"}),
        ("compile_error", read(os.path.join(HERE, "relu.compile_error.py")), 240, {"compiled": False, "correctness": False, "metadata_has": "compilation_error"}),
    ]


def shape_problems(result: object) -> list[str]:
    """What kernel-eval-server.ts's execResultOf and kernel-score.ts would refuse or misread."""
    if not isinstance(result, dict):
        return ["the result is not an object"]
    problems = []
    for key, kind in (("compiled", bool), ("correctness", bool), ("metadata", dict), ("runtime_stats", dict)):
        if not isinstance(result.get(key), kind):
            problems.append(f"{key} is not a {kind.__name__}")
    if isinstance(result.get("runtime"), bool) or not isinstance(result.get("runtime"), (int, float)):
        problems.append("runtime is not a number")
    return problems


def verdict_problems(result: dict, expected: dict) -> list[str]:
    problems = []
    for key in ("compiled", "correctness"):
        if result.get(key) != expected[key]:
            problems.append(f"{key} is {result.get(key)!r}, expected {expected[key]!r}")
    metadata = result.get("metadata", {})
    if expected.get("timed"):
        if not (isinstance(result.get("runtime"), (int, float)) and result["runtime"] > 0):
            problems.append("no runtime measured")
        if not (isinstance(metadata.get("speedup"), (int, float)) and metadata["speedup"] > 0):
            problems.append("no speedup in metadata")
    if "build_cached" in expected and metadata.get("build_cached") != expected["build_cached"]:
        problems.append(f"build_cached is {metadata.get('build_cached')!r}, expected {expected['build_cached']!r}")
    if "metadata_has" in expected and expected["metadata_has"] not in metadata:
        problems.append(f"metadata has no {expected['metadata_has']}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(prog="gpu_check.py")
    parser.add_argument("--out", required=True)
    parser.add_argument("--cache-dir", default=None, help="the build cache (default: a fresh temporary folder, so the first build compiles)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    cache_dir = args.cache_dir or tempfile.mkdtemp(prefix="kernelbench-builds-")
    scratch = tempfile.mkdtemp(prefix="kernelbench-scratch-")
    reference = read(os.path.join(KERNEL_DIR, "relu.py"))
    log = open(os.path.join(args.out, "worker.stderr.log"), "w", encoding="utf-8")
    worker = subprocess.Popen(
        [sys.executable, WORKER, "--shared-dir", SHARED, "--cache-dir", cache_dir, "--scratch", scratch],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True, cwd=scratch,
    )
    ready = json.loads(worker.stdout.readline())
    print(f"worker ready: {ready}", flush=True)
    answers = []
    failures = 0
    for name, candidate, timeout, expected in expectations(reference):
        message = {"op": "evaluate", "id": name, "timeout": timeout, "request": {"custom_cuda": candidate, "ref_arch_src": reference, "num_correct_trials": 5, "num_perf_trials": 100}}
        started = time.monotonic()
        worker.stdin.write(json.dumps(message) + "\n")
        worker.stdin.flush()
        reply = json.loads(worker.stdout.readline())
        seconds = round(time.monotonic() - started, 1)
        result = reply.get("result")
        problems = shape_problems(result) if reply.get("ok") else [f"the worker refused: {reply.get('error')}"]
        if not problems:
            problems = verdict_problems(result, expected)
        failures += bool(problems)
        answers.append({"name": name, "seconds": seconds, "expected": expected, "problems": problems, "reply": reply})
        with open(os.path.join(args.out, "results.json"), "w", encoding="utf-8") as handle:
            json.dump(answers, handle, indent=2)
        shown = {k: result.get(k) for k in ("compiled", "correctness", "runtime")} if isinstance(result, dict) else reply
        metadata = result.get("metadata", {}) if isinstance(result, dict) else {}
        brief = {k: metadata[k] for k in ("speedup", "reference_runtime", "build_cached", "correctness_trials", "correctness_issue", "max_difference", "timeout_error") if k in metadata}
        print(f"{'ok ' if not problems else 'BAD'} {name} ({seconds}s): {json.dumps(shown)} {json.dumps(brief)}{' ' + '; '.join(problems) if problems else ''}", flush=True)
        if "compilation_error" in metadata:
            print("    compilation_error: " + metadata["compilation_error"][:600].replace("\n", "\n    "), flush=True)
    worker.stdin.write(json.dumps({"op": "exit"}) + "\n")
    worker.stdin.close()
    worker.wait(timeout=30)
    print(f"{len(answers) - failures} of {len(answers)} as expected", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
