"""
KernelBench's local back end: evaluates one candidate `ModelNew` against a reference `Model` on this
machine's GPU, the way KernelBench's `eval_kernel_against_ref` does (the original's evaluation
server runs that), and writes a KernelExecResult (`compiled, correctness, metadata, runtime,
runtime_stats`) so that the TypeScript side scores both back ends alike (kernel-score.ts).

    python3 local_eval.py --request request.json --result result.json

Steps: build the candidate by executing its source (its `load_inline` compiles CUDA with nvcc and
ninja) with TORCH_EXTENSIONS_DIR under a folder named by the hash of the source, so a candidate seen
before (in this run or an earlier one) loads its build instead of compiling again (about a minute);
check its output against the reference's on several seeded inputs (atol/rtol); time reference and
candidate with CUDA events (warm-up, then N trials). One process per evaluation (the worker starts
it and enforces the time limit): a kernel that corrupts the CUDA context takes nothing else with it.

torch is imported only where the GPU is used: the request handling, the cache key and the shaping
of results run (and are tested) without it.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import statistics
import sys
import traceback
from typing import Any

# KernelBench's settings (the original's eval_single_example: 5 correctness trials, 100 timed trials).
DEFAULTS = {
    "num_correct_trials": 5,
    "num_perf_trials": 100,
    "num_warmup": 10,
    "seed": 42,
    "atol": 1e-2,
    "rtol": 1e-2,
    "device": "cuda:0",
}
# A compiler's report is cut to this many characters (the lines that say "error" first).
MAX_COMPILE_REPORT = 3000
# How many elements' differences are reported per failing trial.
MAX_TRIALS_REPORTED = 5


class RequestError(ValueError):
    """A request this evaluator cannot run (a field missing or of the wrong type)."""


def parse_request(raw: Any) -> dict:
    """The request with defaults filled in; RequestError names the field and what it must be."""
    if not isinstance(raw, dict):
        raise RequestError(f"a request is a JSON object, got {type(raw).__name__}")
    request = dict(DEFAULTS)
    for key in ("custom_cuda", "ref_arch_src", "cache_dir"):
        value = raw.get(key)
        if not isinstance(value, str) or value == "":
            raise RequestError(f"request.{key} must be a non-empty string")
        request[key] = value
    for key in ("num_correct_trials", "num_perf_trials", "num_warmup", "seed"):
        value = raw.get(key, DEFAULTS[key])
        if isinstance(value, bool) or not isinstance(value, int) or value < (0 if key in ("num_warmup", "seed") else 1):
            raise RequestError(f"request.{key} must be a whole number{' >= 0' if key in ('num_warmup', 'seed') else ' >= 1'}, got {value!r}")
        request[key] = value
    for key in ("atol", "rtol"):
        value = raw.get(key, DEFAULTS[key])
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise RequestError(f"request.{key} must be a number >= 0, got {value!r}")
        request[key] = float(value)
    device = raw.get("device", DEFAULTS["device"])
    if not isinstance(device, str) or re.fullmatch(r"cuda(:\d+)?", device) is None:
        raise RequestError(f"request.device must be a CUDA device such as cuda:0, got {device!r}")
    request["device"] = device
    return request


def source_hash(source: str) -> str:
    """The build cache's key: the candidate's source, byte for byte (its extensions' names may clash; their sources decide)."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def build_dir(cache_dir: str, source: str) -> str:
    """Where the candidate's extensions are built and found again: one folder per source hash."""
    return os.path.join(cache_dir, source_hash(source)[:32])


def exec_result(compiled: bool, correctness: bool, metadata: dict | None = None, runtime: float = -1.0, runtime_stats: dict | None = None) -> dict:
    """A KernelExecResult as KernelBench writes one (runtime -1.0 when not measured)."""
    return {
        "compiled": bool(compiled),
        "correctness": bool(correctness),
        "metadata": dict(metadata or {}),
        "runtime": float(runtime),
        "runtime_stats": dict(runtime_stats or {}),
    }


def timing_stats(times_ms: list[float]) -> dict:
    """KernelBench's runtime_stats: mean, std (population), min and max of the trials in ms, to 3 significant digits, and their number."""
    if not times_ms:
        raise ValueError("no timed trials")
    figure = lambda value: float(f"{value:.3g}")  # noqa: E731
    return {
        "mean": figure(statistics.fmean(times_ms)),
        "std": figure(statistics.pstdev(times_ms)),
        "min": figure(min(times_ms)),
        "max": figure(max(times_ms)),
        "num_trials": len(times_ms),
    }


def compile_report(text: str) -> str:
    """
    The part of a failed build a reader needs. torch's message is one line (`Error building
    extension 'name'`) followed by ninja's whole output, whose nvcc and g++ command lines would fill
    the report: the compiler's own lines that say `error` (with the next two, where nvcc shows the
    code) follow that first line; the whole text when no such line is found.
    """
    lines = text.splitlines()
    if not lines:
        return ""
    head = lines[0].split(": [", 1)[0][:300]
    is_command = lambda line: len(line) > 300 or line.lstrip().startswith(("[", "FAILED:"))  # noqa: E731
    keep: list[int] = []
    for index in range(1, len(lines)):
        if re.search(r"error", lines[index], re.IGNORECASE) and not is_command(lines[index]):
            keep.extend(i for i in range(index, min(index + 3, len(lines))) if not is_command(lines[i]))
    body = "\n".join(lines[i] for i in dict.fromkeys(keep))
    report = f"{head}\n{body}" if body else text
    return report if len(report) <= MAX_COMPILE_REPORT else report[:MAX_COMPILE_REPORT] + "\n...(cut)"


def failure_of_exit(return_code: int, log_tail: str) -> dict:
    """The evaluator died without a result (a signal, an abort in the driver): as the original server says it."""
    metadata = {"error": f"Failed to parse result. Return code: {return_code}", "return_code": return_code}
    if log_tail:
        metadata["log_tail"] = log_tail[-2000:]
    return exec_result(False, False, metadata)


def failure_of_timeout(seconds: float) -> dict:
    """The original's result for an evaluation that ran past its limit."""
    return exec_result(False, False, {"timeout_error": True, "timeout_seconds": seconds})


def with_speedup(result: dict, reference_times: list[float], candidate_times: list[float]) -> dict:
    """
    Adds the reference's timing, measured in the same process on the same inputs, and the speed-up
    over it (from the unrounded means: a kernel of a few microseconds keeps its precision).
    """
    if not result["correctness"] or not reference_times or not candidate_times:
        return result
    reference_mean, candidate_mean = statistics.fmean(reference_times), statistics.fmean(candidate_times)
    metadata = dict(result["metadata"])
    metadata["reference_runtime"] = timing_stats(reference_times)["mean"]
    metadata["reference_runtime_stats"] = timing_stats(reference_times)
    if reference_mean > 0 and candidate_mean > 0:
        metadata["speedup"] = float(f"{reference_mean / candidate_mean:.4g}")
    return {**result, "metadata": metadata}


# ---- the GPU part (torch from here on) --------------------------------------------------------


def _set_seed(torch: Any, seed: int) -> None:
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)


def _load_module(source: str, name: str) -> dict:
    """Executes a module's source in a namespace of its own (as KernelBench loads both models)."""
    namespace: dict = {"__name__": name}
    exec(compile(source, f"<{name}>", "exec"), namespace)
    return namespace


def _to_device(torch: Any, values: list, device: Any) -> list:
    return [value.to(device) if isinstance(value, torch.Tensor) else value for value in values]


def _time_forward(torch: Any, model: Any, inputs: list, device: Any) -> float:
    """Milliseconds of one forward pass, measured with CUDA events."""
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    model(*inputs)
    end.record()
    torch.cuda.synchronize(device=device)
    return start.elapsed_time(end)


def _time_both(torch: Any, candidate: Any, reference: Any, inputs: list, trials: int, warmup: int, device: Any) -> tuple[list[float], list[float]]:
    """
    Candidate and reference timed on the same inputs, trial by trial, each going first every other
    trial: timed one after the other, the first pays for the GPU's clocks still rising (on an H100 the
    reference timed against itself scored 0.86 that way).
    """
    candidate_times: list[float] = []
    reference_times: list[float] = []
    with torch.no_grad():
        for _ in range(warmup):
            candidate(*inputs)
            reference(*inputs)
        torch.cuda.synchronize(device=device)
        for trial in range(trials):
            order = ((candidate, candidate_times), (reference, reference_times))
            for model, times in order if trial % 2 == 0 else order[::-1]:
                times.append(_time_forward(torch, model, inputs, device))
    return candidate_times, reference_times


def _check_correctness(torch: Any, reference: Any, candidate: Any, get_inputs: Any, request: dict, device: Any, metadata: dict) -> bool:
    """KernelBench's check: every seeded trial's output has the reference's shape and is allclose to it."""
    trials = request["num_correct_trials"]
    generator = torch.Generator().manual_seed(request["seed"])
    seeds = torch.randint(0, 2**32 - 1, (trials,), generator=generator).tolist()
    passed = 0
    max_differences: list[str] = []
    avg_differences: list[str] = []
    with torch.no_grad():
        for seed in seeds:
            _set_seed(torch, seed)
            inputs = _to_device(torch, list(get_inputs()), device)
            _set_seed(torch, seed)
            expected = reference(*inputs)
            _set_seed(torch, seed)
            got = candidate(*inputs)
            torch.cuda.synchronize(device=device)
            if not isinstance(got, torch.Tensor) or got.shape != expected.shape:
                shape = tuple(got.shape) if isinstance(got, torch.Tensor) else type(got).__name__
                metadata["correctness_issue"] = f"Output shape mismatch: Expected {tuple(expected.shape)}, got {shape}"
                break
            if not torch.allclose(got.float(), expected.float(), atol=request["atol"], rtol=request["rtol"]):
                difference = torch.abs(got.float() - expected.float())
                if len(max_differences) < MAX_TRIALS_REPORTED:
                    max_differences.append(f"{difference.max().item():.6f}")
                    avg_differences.append(f"{difference.mean().item():.6f}")
                metadata["correctness_issue"] = "Output mismatch"
            else:
                passed += 1
    if max_differences:
        metadata["max_difference"] = max_differences
        metadata["avg_difference"] = avg_differences
    metadata["correctness_trials"] = f"({passed} / {trials})"
    return passed == trials


def evaluate(request: dict) -> dict:
    """The KernelExecResult of one candidate (never raises for the candidate's faults)."""
    import torch  # noqa: PLC0415 (the GPU part only)

    if not torch.cuda.is_available():
        return exec_result(False, False, {"other_error": "torch reports no CUDA device (torch.cuda.is_available() is False)"})
    device = torch.device(request["device"])
    torch.cuda.set_device(device)
    metadata: dict = {"hardware": torch.cuda.get_device_name(device=device), "device": str(device)}
    seed = request["seed"]

    try:
        reference_module = _load_module(request["ref_arch_src"], "reference")
        Model, get_inputs, get_init_inputs = reference_module["Model"], reference_module["get_inputs"], reference_module["get_init_inputs"]
        _set_seed(torch, seed)
        init_inputs = _to_device(torch, list(get_init_inputs()), device)
        with torch.no_grad():
            _set_seed(torch, seed)
            reference = Model(*init_inputs).to(device)
    except Exception as exc:  # noqa: BLE001 (the reference itself is broken: not the candidate's fault, said as such)
        metadata["other_error"] = f"the reference model could not be built: {type(exc).__name__}: {exc}"
        return exec_result(False, False, metadata)

    folder = build_dir(request["cache_dir"], request["custom_cuda"])
    os.makedirs(folder, exist_ok=True)
    os.environ["TORCH_EXTENSIONS_DIR"] = folder
    metadata["build_dir"] = folder
    # A build left by an earlier evaluation of the same source: load_inline finds it and compiles nothing.
    metadata["build_cached"] = any(True for _ in os.scandir(folder))
    try:
        candidate_module = _load_module(request["custom_cuda"], "candidate")
        ModelNew = candidate_module.get("ModelNew")
        if ModelNew is None:
            raise NameError("the candidate defines no class ModelNew")
        torch.cuda.synchronize(device=device)
    except Exception as exc:  # noqa: BLE001
        text = f"{type(exc).__name__}: {exc}"
        if "CUDA error" in str(exc):
            metadata["cuda_error"] = f"CUDA Error: {exc}"
        else:
            metadata["compilation_error"] = compile_report(text)
        return exec_result(False, False, metadata)

    try:
        with torch.no_grad():
            _set_seed(torch, seed)
            candidate = ModelNew(*init_inputs).to(device)
            torch.cuda.synchronize(device=device)
    except Exception as exc:  # noqa: BLE001
        metadata["runtime_error"] = f"ModelNew could not be built: {type(exc).__name__}: {exc}"
        return exec_result(True, False, metadata)

    try:
        correct = _check_correctness(torch, reference, candidate, get_inputs, request, device, metadata)
    except Exception as exc:  # noqa: BLE001
        metadata["runtime_error"] = f"{type(exc).__name__}: {exc}"
        if "CUDA error" in str(exc) or "illegal memory access" in str(exc):
            metadata["cuda_error"] = f"CUDA Error: {exc}"
        return exec_result(True, False, metadata)
    if not correct:
        return exec_result(True, False, metadata)

    try:
        _set_seed(torch, seed)
        inputs = _to_device(torch, list(get_inputs()), device)
        trials, warmup = request["num_perf_trials"], request["num_warmup"]
        candidate_times, reference_times = _time_both(torch, candidate, reference, inputs, trials, warmup, device)
    except Exception as exc:  # noqa: BLE001
        metadata["runtime_error"] = f"while timing: {type(exc).__name__}: {exc}"
        return exec_result(True, True, metadata)
    stats = timing_stats(candidate_times)
    result = exec_result(True, True, metadata, stats["mean"], {**stats, "hardware": metadata["hardware"], "device": metadata["device"]})
    return with_speedup(result, reference_times, candidate_times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="local_eval.py", description="Evaluate one KernelBench candidate on this machine's GPU.")
    parser.add_argument("--request", required=True, help="a JSON file: custom_cuda, ref_arch_src, cache_dir, and optional trials, seed, atol, rtol, device")
    parser.add_argument("--result", required=True, help="where the KernelExecResult JSON is written")
    args = parser.parse_args(argv)
    try:
        with open(args.request, encoding="utf-8") as handle:
            request = parse_request(json.load(handle))
    except (OSError, ValueError) as exc:
        print(f"local_eval.py: {exc}", file=sys.stderr)
        return 2
    try:
        result = evaluate(request)
    except Exception as exc:  # noqa: BLE001 (the original's last-level catch: the result says what happened)
        traceback.print_exc()
        key = "cuda_error" if "CUDA error" in str(exc) else "other_error"
        result = exec_result(False, False, {key: f"{type(exc).__name__}: {exc}"})
    temporary = f"{args.result}.partial"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    os.replace(temporary, args.result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
