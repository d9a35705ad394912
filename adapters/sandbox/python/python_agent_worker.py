"""
trace-bench's worker for agents written in Python (code that is not ours, calling an LLM API
itself), for the TypeScript engine, which never runs such code in its own process.

Requests arrive one per line on stdin, answers go one per line to the stdout the worker had at
start (the first line says it is ready):

  {"op": "run_agent", "code": "<python source>", "function": "agent", "args": [...],
   "endpoint": {"socket": "<path>", "base_path": "/<channel>/v1", "api_key": "<job secret>"} | null,
   "timeout": 30}
      runs function(*args) from the code in a fresh python3 child, in the scratch folder, with a
      wall-clock limit; answers {"output": <its JSON-able result>} or {"error": "<why>"}, and what
      it printed ("log").

The child's environment is the worker's (an allowlist the engine built: no key of the engine's)
plus, when the request names the job's endpoint, OPENAI_BASE_URL / OPENAI_API_BASE pointing at
the in-sandbox relay (loopback_relay.py) and OPENAI_API_KEY set to the job's secret: the only
LLM it can reach is the job's audited endpoint, and the only key it ever sees is that secret.
After each request every process the child left is killed and the scratch folder wiped (the
LLM4AD worker's rules: same sandbox, same helpers).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

from loopback_relay import LoopbackRelay
# The shared worker loop (sandbox_worker) and the LLM4AD worker's sandbox helpers live in --shared-dir.
sys.path.insert(0, sys.argv[sys.argv.index("--shared-dir") + 1])
from sandbox_worker import SandboxedWorker, serve  # noqa: E402

AGENT_RUNNER = """\
import json, sys, traceback
with open(sys.argv[1], encoding="utf-8") as fh:
    request = json.load(fh)
try:
    namespace = {"__name__": "agent"}
    exec(compile(request["code"], "<agent>", "exec"), namespace)
    function = namespace.get(request["function"])
    if not callable(function):
        raise NameError(f"the agent's code defines no function {request['function']}")
    output = function(*request["args"])
    with open(sys.argv[2], "w", encoding="utf-8") as fh:
        json.dump({"output": output}, fh)
except Exception as exc:
    frame = (traceback.extract_tb(sys.exc_info()[2]) or [None])[-1]
    loc = f" at: {frame.line}" if frame is not None and frame.line else ""
    print(f"FAIL: {type(exc).__name__}: {exc}{loc}", file=sys.stderr)
    sys.exit(1)
"""

MAX_LOG = 20000


class AgentWorker(SandboxedWorker):
    def __init__(self, protocol, scratch: str, is_init: bool, socket_dir: str | None):
        super().__init__(protocol, scratch, is_init)
        self.socket_dir = socket_dir
        self.relay: LoopbackRelay | None = None

    def agent_env(self, endpoint: dict | None) -> dict:
        env = dict(os.environ)
        for name in ("OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_API_KEY"):
            env.pop(name, None)
        if endpoint is None:
            return env
        if self.socket_dir is None:
            raise RuntimeError("the worker was started without --socket-dir: it cannot reach the job's endpoint")
        if self.relay is None:
            self.relay = LoopbackRelay(self.socket_dir)
        self.relay.point_at(str(endpoint["socket"]))
        base = f"http://127.0.0.1:{self.relay.port}{endpoint['base_path']}"
        env.update({"OPENAI_BASE_URL": base, "OPENAI_API_BASE": base, "OPENAI_API_KEY": str(endpoint["api_key"])})
        return env

    def run_agent(self, request: dict) -> dict:
        timeout = float(request.get("timeout", 30))
        script = os.path.join(self.scratch, "agent_runner.py")
        args = os.path.join(self.scratch, "agent_request.json")
        result = os.path.join(self.scratch, "agent_result.json")
        with open(script, "w", encoding="utf-8") as fh:
            fh.write(AGENT_RUNNER)
        with open(args, "w", encoding="utf-8") as fh:
            json.dump({"code": str(request.get("code", "")), "function": str(request.get("function", "agent")), "args": list(request.get("args", []))}, fh)
        env = self.agent_env(request.get("endpoint"))
        proc = subprocess.Popen([sys.executable, script, args, result], cwd=self.scratch, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
            log = ((out or "") + (err or ""))[-MAX_LOG:]
            if proc.returncode == 0:
                with open(result, encoding="utf-8") as fh:
                    return {"output": json.load(fh)["output"], "log": log}
            for line in (err or "").splitlines():
                if line.startswith("FAIL:"):
                    return {"error": line[len("FAIL:"):].strip(), "log": log}
            tail = (err or "no output").strip().splitlines()
            return {"error": tail[-1][:200] if tail else f"the agent exited with code {proc.returncode}", "log": log}
        except subprocess.TimeoutExpired:
            return {"error": f"the agent timed out after {timeout:g}s", "log": ""}
        finally:
            self.sweep(proc.pid, reap=False)

    def handle(self, request: dict) -> dict:
        if request.get("op") != "run_agent":
            return {"ok": False, "error": {"kind": "protocol", "message": f"unknown op {request.get('op')!r}"}}
        try:
            return {"ok": True, "result": self.run_agent(request)}
        except Exception as exc:  # noqa: BLE001 (the engine gets the reason, the worker lives on)
            return {"ok": False, "error": {"kind": "protocol", "message": f"{type(exc).__name__}: {exc}"}}


def main() -> None:
    serve(
        "python_agent_worker",
        lambda protocol, args: AgentWorker(protocol, args.scratch, args.init, args.socket_dir),
        lambda parser: parser.add_argument("--socket-dir", default=None, help="the folder of the jobs' endpoint sockets, as this worker sees it"),
    )

if __name__ == "__main__":
    main()
