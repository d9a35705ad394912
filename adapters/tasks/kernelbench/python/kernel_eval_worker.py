"""
The worker of KernelBench's local back end, for the TypeScript engine, which never runs candidate
code itself: one request at a time (`{"op": "evaluate", "request": {...}, "timeout": s}`), each
evaluated by a fresh `python3 local_eval.py` (a CUDA context per evaluation, as the original runs a
process per evaluation) under a wall-clock limit. Its answer: `{"ok": true, "result":
KernelExecResult, "log_tail": ...}`; past the limit, the original's timeout result.

The build cache (`--cache-dir`) outlives the worker: builds are kept by source hash, so a candidate
evaluated again (in this run or a later one) loads its build instead of compiling it.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# The shared worker loop (sandbox_worker) and the LLM4AD worker's sandbox helpers live in --shared-dir.
sys.path.insert(0, sys.argv[sys.argv.index("--shared-dir") + 1])
from local_eval import RequestError, failure_of_exit, failure_of_timeout, parse_request  # noqa: E402
from sandbox_worker import SandboxedWorker, serve  # noqa: E402
from trace_bench_worker import _die_with_parent  # noqa: E402

LOG_TAIL = 4000


class KernelEvalWorker(SandboxedWorker):

    def __init__(self, protocol, scratch: str, is_init: bool, cache_dir: str):
        super().__init__(protocol, scratch, is_init)
        self.cache_dir = cache_dir

    def evaluate(self, message: dict) -> dict:
        timeout = float(message.get("timeout", 300))
        request = dict(message.get("request") or {})
        request["cache_dir"] = self.cache_dir
        parse_request(request)  # a bad request is said here, not as a candidate's failure
        request_path = os.path.join(self.scratch, "request.json")
        result_path = os.path.join(self.scratch, "result.json")
        log_path = os.path.join(self.scratch, "evaluation.log")
        with open(request_path, "w", encoding="utf-8") as handle:
            json.dump(request, handle)
        started = time.monotonic()
        with open(log_path, "wb") as log:
            child = subprocess.Popen(
                [sys.executable, os.path.join(HERE, "local_eval.py"), "--request", request_path, "--result", result_path],
                cwd=self.scratch,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # one process group: the compiler's processes die with it
                preexec_fn=_die_with_parent,  # a worker killed by the engine (a stopped job) takes its evaluation along
            )
            try:
                try:
                    code = child.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    try:
                        os.killpg(child.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    child.wait()
                    return {"ok": True, "result": failure_of_timeout(timeout), "log_tail": _tail(log_path), "seconds": round(time.monotonic() - started, 3)}
                tail = _tail(log_path)
                try:
                    with open(result_path, encoding="utf-8") as handle:
                        result = json.load(handle)
                except (OSError, ValueError):
                    result = failure_of_exit(code, tail)
                return {"ok": True, "result": result, "log_tail": tail, "seconds": round(time.monotonic() - started, 3)}
            finally:
                self.sweep(child.pid, reap=False)

    def handle(self, request: dict) -> dict:
        if request.get("op") != "evaluate":
            return {"ok": False, "error": {"kind": "protocol", "message": f"unknown op {request.get('op')!r}"}}
        try:
            return self.evaluate(request)
        except RequestError as exc:
            return {"ok": False, "error": {"kind": "request", "message": str(exc)}}
        except Exception as exc:  # noqa: BLE001 (the engine gets the reason, the worker lives on)
            return {"ok": False, "error": {"kind": "protocol", "message": f"{type(exc).__name__}: {exc}"}}


def _tail(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, os.path.getsize(path) - LOG_TAIL))
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return ""


def main() -> None:
    def arguments(parser):
        parser.add_argument("--cache-dir", required=True, help="where builds are kept by source hash (writable, kept across runs)")

    serve("kernel_eval_worker", lambda protocol, args: KernelEvalWorker(protocol, args.scratch, args.init, args.cache_dir), arguments)


if __name__ == "__main__":
    main()
