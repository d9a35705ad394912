"""
The hf suite's code worker, for the TypeScript engine, which never runs candidate code itself:
runs a HumanEval/MBPP candidate with the dataset's unit tests, and the BBEH agent's trainable
`extract_answer` on a model's reply.

Requests arrive one per line on stdin, answers go one per line to the stdout the worker had at
start (the first line says it is ready). Each candidate runs as a fresh `python3` child in the
scratch folder with a wall-clock timeout; afterwards every process it left is killed (as init of
its pid namespace under bubblewrap: kill(-1)) and the scratch folder is wiped. The privilege drop,
parent-death signal and wipe are the LLM4AD worker's (same sandbox, same rules).

A failure's feedback names the exception and the failing line, as the original's code_exec guide
does: that text is all the optimizer learns from.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
# The shared worker loop (sandbox_worker) and the LLM4AD worker's sandbox helpers live in --shared-dir.
sys.path.insert(0, sys.argv[sys.argv.index("--shared-dir") + 1])
from sandbox_worker import SandboxedWorker, serve  # noqa: E402

RUNNER_HEADER = "import traceback, sys\ntry:\n"
RUNNER_FOOTER = (
    "\nexcept Exception as exc:\n"
    "    tb = traceback.extract_tb(sys.exc_info()[2])\n"
    "    frame = tb[-1] if tb else None\n"
    "    loc = f' at: {frame.line}' if frame and frame.line else ''\n"
    "    print(f'FAIL: {type(exc).__name__}: {exc}{loc}', file=sys.stderr)\n"
    "    sys.exit(1)\n"
)


def runner_source(candidate: str, test: str, entry: str, setup: str) -> str:
    """The candidate, the tests, `check(entry)` when the tests define it (HumanEval), then PASS; indented into a try."""
    harness = "\n".join(
        [
            "import traceback",
            setup,
            candidate,
            test,
            f"\nif 'check' in dir():\n    check({entry})\n" if entry else "",
            "print('PASS')",
        ]
    )
    return RUNNER_HEADER + "\n".join("    " + line for line in harness.splitlines()) + RUNNER_FOOTER


EXTRACT_RUNNER = """\
import json, linecache, sys, traceback
with open(sys.argv[1], encoding="utf-8") as fh:
    args = json.load(fh)
try:
    namespace = {}
    # Registered with linecache so a failure can name its line, as the feedback the optimizer reads.
    linecache.cache["<extract_answer>"] = (len(args["code"]), None, args["code"].splitlines(True), "<extract_answer>")
    exec(compile(args["code"], "<extract_answer>", "exec"), namespace)
    function = namespace.get("extract_answer")
    if not callable(function):
        functions = [v for k, v in namespace.items() if callable(v) and getattr(v, "__module__", None) is None and not k.startswith("__")]
        function = functions[0] if len(functions) == 1 else None
    if function is None:
        raise NameError("the code defines no function extract_answer")
    answer = function(None, args["prompt_template"], args["question"], args["response"])
    with open(sys.argv[2], "w", encoding="utf-8") as fh:
        json.dump({"answer": str(answer)}, fh)
except Exception as exc:
    frame = (traceback.extract_tb(sys.exc_info()[2]) or [None])[-1]
    loc = f" at: {frame.line}" if frame is not None and frame.line else ""
    print(f"FAIL: {type(exc).__name__}: {exc}{loc}", file=sys.stderr)
    sys.exit(1)
"""


class CodeWorker(SandboxedWorker):

    def run_tests(self, request: dict) -> dict:
        timeout = float(request.get("timeout", 10))
        script = os.path.join(self.scratch, "candidate_test.py")
        with open(script, "w", encoding="utf-8") as fh:
            fh.write(runner_source(str(request.get("candidate", "")), str(request.get("test", "")), str(request.get("entry_point", "")), str(request.get("setup", ""))))
        proc = subprocess.Popen([sys.executable, script], cwd=self.scratch, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            shown = int(timeout) if timeout == int(timeout) else timeout
            return {"passed": False, "detail": f"timed out after {shown}s — the function likely has an infinite loop or is far too slow; ensure it terminates"}
        finally:
            self.sweep(proc.pid, reap=False)
        if proc.returncode == 0 and "PASS" in out:
            return {"passed": True, "detail": "all unit tests passed"}
        for line in (err or "").splitlines():
            if line.startswith("FAIL:"):
                return {"passed": False, "detail": line[len("FAIL:"):].strip()}
        tail = (err or out or "no output").strip().splitlines()
        return {"passed": False, "detail": tail[-1][:200] if tail else "unit tests failed"}

    def extract_answer(self, request: dict) -> dict:
        """Runs a (trainable) extract_answer(self, prompt_template, question, response) on one reply."""
        timeout = float(request.get("timeout", 10))
        script = os.path.join(self.scratch, "extract_answer_runner.py")
        args = os.path.join(self.scratch, "extract_answer_args.json")
        result = os.path.join(self.scratch, "extract_answer_result.json")
        with open(script, "w", encoding="utf-8") as fh:
            fh.write(EXTRACT_RUNNER)
        with open(args, "w", encoding="utf-8") as fh:
            json.dump({k: str(request.get(k, "")) for k in ("code", "prompt_template", "question", "response")}, fh)
        proc = subprocess.Popen([sys.executable, script, args, result], cwd=self.scratch, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            _, err = proc.communicate(timeout=timeout)
            if proc.returncode == 0:
                with open(result, encoding="utf-8") as fh:
                    return {"answer": json.load(fh)["answer"]}
            for line in (err or "").splitlines():
                if line.startswith("FAIL:"):
                    return {"error": line[len("FAIL:"):].strip()}
            tail = (err or "no output").strip().splitlines()
            return {"error": tail[-1][:200] if tail else "extract_answer failed"}
        except subprocess.TimeoutExpired:
            return {"error": f"extract_answer timed out after {timeout:g}s"}
        finally:
            self.sweep(proc.pid, reap=False)

    def handle(self, request: dict) -> dict:
        ops = {"run_tests": self.run_tests, "extract_answer": self.extract_answer}
        op = ops.get(request.get("op"))
        if op is None:
            return {"ok": False, "error": {"kind": "protocol", "message": f"unknown op {request.get('op')!r}"}}
        try:
            return {"ok": True, "result": op(request)}
        except Exception as exc:  # noqa: BLE001 (the engine gets the reason, the worker lives on)
            return {"ok": False, "error": {"kind": "protocol", "message": f"{type(exc).__name__}: {exc}"}}


def main() -> None:
    serve("hf_code_worker", lambda protocol, args: CodeWorker(protocol, args.scratch, args.init))

if __name__ == "__main__":
    main()
