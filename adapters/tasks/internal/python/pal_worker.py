"""
The PAL worker of internal:multiobjective_bbeh, for the TypeScript engine, which never runs
candidate code itself: runs a candidate program with `question` in its namespace and reports the
`result` it set (as str), the error it raised, and the CPU seconds (time.process_time) the exec
took, as the original's guide measures them.

Requests arrive one per line on stdin, answers go one per line to the stdout the worker had at
start (the first line says it is ready). Each program runs in a child forked from this worker (in
its own session, in the scratch folder) under a wall-clock limit; afterwards every process it
left is killed and the scratch folder is wiped, with the LLM4AD worker's helpers (same sandbox,
same rules).
"""
from __future__ import annotations

import gc
import json
import os
import select
import sys
import time
# The shared worker loop (sandbox_worker) and the LLM4AD worker's sandbox helpers live in --shared-dir.
sys.path.insert(0, sys.argv[sys.argv.index("--shared-dir") + 1])
from sandbox_worker import SandboxedWorker, serve  # noqa: E402

def warm_up() -> None:
    """
    In the forked child, before the clock starts: the first writes to memory shared with the
    worker copy its pages, which costs milliseconds of CPU that the original (exec in its own
    process) never pays. Touching the heap, the collector's lists and the compiler first leaves
    the program's own time (about 1 ms here instead of 6).
    """
    scratch = [{} for _ in range(20000)]
    del scratch
    gc.collect()
    str(eval(compile("not True", "<warm-up>", "eval")))


def run_program(code: str, question: str) -> dict:
    """In the forked child: exec the program with `question`, timed with process_time as the original times it."""
    namespace = {"question": question}
    error = None
    t0 = time.process_time()
    try:
        exec(code, namespace)
    except BaseException as exc:  # SystemExit too: the program's failure, not the worker's
        error = f"{type(exc).__name__}: {exc}"
    t1 = time.process_time()
    out = {"execution_time_s": t1 - t0}
    if error is not None:
        out["error"] = error
    elif "result" in namespace:
        try:
            out["result"] = str(namespace["result"])
        except BaseException as exc:
            out["error"] = f"{type(exc).__name__}: {exc}"
    else:
        out["error"] = "No 'result' variable set by code"
    return out


class PalWorker(SandboxedWorker):

    def run_pal(self, request: dict) -> dict:
        """Runs the program in a forked child (a fresh interpreter per program costs ~50x more), under a wall-clock limit."""
        timeout = float(request.get("timeout", 10))
        code = str(request.get("code", ""))
        question = str(request.get("question", ""))
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            os.setsid()
            try:
                os.chdir(self.scratch)
                warm_up()
                payload = json.dumps(run_program(code, question))
            except BaseException as exc:  # noqa: BLE001
                payload = json.dumps({"error": f"{type(exc).__name__}: {exc}", "execution_time_s": None})
            with os.fdopen(write_end, "w", encoding="utf-8") as fh:
                fh.write(payload)
            os._exit(0)
        os.close(write_end)
        chunks = []
        deadline = time.monotonic() + timeout
        try:
            with os.fdopen(read_end, "r", encoding="utf-8") as fh:
                while True:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return {"error": f"TimeoutError: the program ran longer than {timeout:g}s", "execution_time_s": None}
                    ready, _, _ = select.select([fh], [], [], left)
                    if not ready:
                        continue
                    chunk = fh.read()
                    if chunk == "":
                        break
                    chunks.append(chunk)
            text = "".join(chunks)
            if text == "":
                return {"error": "the program ended the interpreter", "execution_time_s": None}
            return json.loads(text)
        finally:
            self.sweep(pid, reap=True)

    def handle(self, request: dict) -> dict:
        if request.get("op") != "run_pal":
            return {"ok": False, "error": {"kind": "protocol", "message": f"unknown op {request.get('op')!r}"}}
        try:
            return {"ok": True, "result": self.run_pal(request)}
        except Exception as exc:  # noqa: BLE001 (the engine gets the reason, the worker lives on)
            return {"ok": False, "error": {"kind": "protocol", "message": f"{type(exc).__name__}: {exc}"}}


def main() -> None:
    serve("pal_worker", lambda protocol, args: PalWorker(protocol, args.scratch, args.init))

if __name__ == "__main__":
    main()
