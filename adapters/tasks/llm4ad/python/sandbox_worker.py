"""What the sandboxed one-request-at-a-time workers share: hf's code worker, the PAL worker of
internal:multiobjective_bbeh and the python agent worker.

Each reads JSON requests on stdin and answers on the original stdout (fd 1 then points at stderr, so
nothing a request prints can forge an answer), runs each request in a child of its own, and after
each request kills whatever that request left running and wipes its scratch folder. They import this
module from --shared-dir (this folder), as they import trace_bench_worker's sandbox helpers.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
from typing import Callable

from trace_bench_worker import _wipe, answer_requests, start_confined


class SandboxedWorker:
    """One request at a time; a subclass answers them in `handle`."""

    def __init__(self, protocol, scratch: str, is_init: bool):
        self.protocol = protocol
        self.scratch = scratch
        self.is_init = is_init

    def send(self, message: dict) -> None:
        self.protocol.write(json.dumps(message) + "\n")
        self.protocol.flush()

    def handle(self, request: dict) -> dict:
        raise NotImplementedError

    def sweep(self, child: int, reap: bool) -> None:
        """Kills what the request left running and wipes the scratch folder.

        As pid 1 of its own namespace the worker kills and reaps every other process in it; otherwise
        it kills the child's process group. `reap`: wait for the child here (one forked with os.fork;
        a subprocess.Popen child was already waited for by its owner).
        """
        if self.is_init:
            while True:
                try:
                    os.kill(-1, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                try:
                    os.waitpid(-1, 0)
                except ChildProcessError:
                    try:
                        os.kill(-1, 0)
                    except ProcessLookupError:
                        break
        else:
            try:
                os.killpg(child, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                os.waitpid(child, 0 if reap else os.WNOHANG)
            except ChildProcessError:
                pass
        _wipe(self.scratch)


def serve(name: str, make_worker: Callable[[object, argparse.Namespace], SandboxedWorker], add_arguments: Callable[[argparse.ArgumentParser], None] | None = None) -> None:
    """Parses the common arguments (and the worker's own), confines the process, then answers requests until stdin closes or `exit`."""
    parser = argparse.ArgumentParser(prog=name)
    parser.add_argument("--shared-dir", required=True, help="the LLM4AD worker's folder, for its sandbox helpers")
    parser.add_argument("--scratch", required=True)
    parser.add_argument("--init", action="store_true")
    parser.add_argument("--uid", type=int, default=0)
    parser.add_argument("--max-processes", type=int, default=0)
    if add_arguments is not None:
        add_arguments(parser)
    args = parser.parse_args()
    protocol = start_confined(args, name)
    os.makedirs(args.scratch, exist_ok=True)
    worker = make_worker(protocol, args)
    worker.send({"ready": True, "pid": os.getpid()})

    def answer(request: dict) -> None:
        reply = worker.handle(request)
        if "id" in request:
            reply["id"] = request["id"]
        worker.send(reply)

    answer_requests(answer)
