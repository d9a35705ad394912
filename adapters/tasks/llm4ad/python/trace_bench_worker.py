"""
trace-bench's LLM4AD evaluation worker: a long-lived python3 process speaking JSON lines.

Requests arrive one per line on stdin; answers go, one per line, to the stdout the worker had at
start. Everything else written to stdout or stderr (the task's or the candidate's prints, C
libraries) goes to stderr, so nothing can corrupt the protocol; a candidate's Python-level output
is captured and returned with its result.

  {"id": 1, "op": "load", "task": {"root", "module", "eval_kwargs"}, "instance": "<job>"}
      imports the task module once, builds its evaluator (its instances) once per instance key,
      and answers with the task's constants.
  {"id": 2, "op": "evaluate", "task": {...}, "instance": "<job>", "code": "<candidate>", "timeout": 30}
      runs the candidate as the reference's AutonomousEvaluatorGuide does (path A) and answers with
      {score, feedback, status, output}.

Limits: the address space is capped at start (--memory-mb); each evaluation gets a wall-clock
alarm and a CPU-time limit of its timeout (the engine also kills the whole worker a little later,
for code that never returns to Python).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import math
import os
import resource
import signal
import sys
import time
import traceback
from typing import Any

PENALTY = -1000000.0
# Sibling modules some task folders import by plain name: evicted between tasks (suites.md §1.12).
SHARED_HELPER_NAMES = ("get_instance", "train", "test_id", "test_odd", "feynman_equations", "strogatz_extended", "strogatz_equations")
MAX_OUTPUT = 20000
MAX_EVALUATORS = 8


class EvaluationTimeout(Exception):
    pass


def _on_alarm(signum: int, frame: Any) -> None:
    raise EvaluationTimeout()


class Worker:
    def __init__(self, protocol: io.TextIOBase):
        self.protocol = protocol
        self.modules: dict[str, Any] = {}
        self.evaluators: dict[str, Any] = {}

    # -- tasks -------------------------------------------------------------------------------
    def module(self, task: dict) -> Any:
        key = os.path.join(task["root"], task["module"])
        if key in self.modules:
            return self.modules[key]
        folder = os.path.abspath(key)
        init = os.path.join(folder, "__init__.py")
        if not os.path.isfile(init):
            raise FileNotFoundError(f"task module not found: {init}")
        for name in SHARED_HELPER_NAMES:
            sys.modules.pop(name, None)
        if folder in sys.path:
            sys.path.remove(folder)
        sys.path.insert(0, folder)
        name = f"trace_bench_task_{task['module']}_{abs(hash(folder)) % 10**8}"
        spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[folder])
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
        self.modules[key] = module
        return module

    def evaluator(self, task: dict, instance: str) -> Any:
        key = json.dumps([task["root"], task["module"], task.get("eval_kwargs", {}), instance], sort_keys=True)
        if key in self.evaluators:
            return self.evaluators[key]
        module = self.module(task)
        kwargs = dict(getattr(module, "EVAL_KWARGS", {}))
        kwargs.update(task.get("eval_kwargs", {}))
        evaluator = getattr(module, module.EVAL_CLASS_NAME)(**kwargs)
        while len(self.evaluators) >= MAX_EVALUATORS:
            self.evaluators.pop(next(iter(self.evaluators)))
        self.evaluators[key] = evaluator
        return evaluator

    def timeout_of(self, task: dict) -> Any:
        """The guide's timeout as the reference computes it (EVAL_KWARGS + overrides, default 30; falsy → 30.0)."""
        merged = dict(getattr(self.module(task), "EVAL_KWARGS", {}))
        merged.update(task.get("eval_kwargs", {}))
        return merged.get("timeout_seconds", 30) or 30.0

    @staticmethod
    def timeout_feedback(timeout: Any) -> str:
        env = {"status": "timeout", "phase": "evaluate", "timeout_seconds": timeout}
        return "TRACE_FEEDBACK_JSON=" + json.dumps(env) + f"\nEvaluation timed out after {timeout}s"

    def load(self, request: dict) -> dict:
        task = request["task"]
        module = self.module(task)
        self.evaluator(task, request.get("instance", ""))
        timeout = self.timeout_of(task)
        alternatives_path = os.path.join(task["root"], task["module"], "stub_alternatives.json")
        alternatives = []
        if os.path.isfile(alternatives_path):
            with open(alternatives_path, encoding="utf-8") as handle:
                alternatives = json.load(handle)
        return {
            "entry": module.ENTRY_NAME,
            "function_signature": getattr(module, "FUNCTION_SIGNATURE", f"def {module.ENTRY_NAME}(...):"),
            "import_header": getattr(module, "IMPORT_HEADER", ""),
            "task_description": getattr(module, "TASK_DESCRIPTION", ""),
            "objective_text": getattr(module, "OBJECTIVE_TEXT", ""),
            "template_function": module.TEMPLATE_FUNCTION,
            "eval_class": module.EVAL_CLASS_NAME,
            "timeout_seconds": float(timeout),
            # What a timed-out evaluation's feedback says (the engine writes it when it kills a worker).
            "timeout_feedback": self.timeout_feedback(timeout),
            "stub_alternatives": alternatives,
        }

    # -- evaluation (the reference's AutonomousEvaluatorGuide, path A) -------------------------
    def evaluate(self, request: dict) -> dict:
        task = request["task"]
        module = self.module(task)
        evaluator = self.evaluator(task, request.get("instance", ""))
        entry = module.ENTRY_NAME
        header = request.get("imports")
        if header is None:
            header = getattr(module, "IMPORT_HEADER", "")
        code = request["code"]
        full_code = header + "\n" + code if header else code
        timeout_value = self.timeout_of(task)
        timeout = float(timeout_value)
        timing = request.get("feedback_timing", True)
        captured = io.StringIO()
        started = time.time()

        def ok_line(score: Any) -> str:
            return f"Autonomous eval OK in {time.time() - started:.2f}s; score={score}" if timing else f"Autonomous eval OK; score={score}"

        def answer(score: float, feedback: str, status: str) -> dict:
            output = captured.getvalue()
            return {"score": score, "feedback": feedback, "status": status, "output": output[-MAX_OUTPUT:]}

        def envelope(env: dict) -> str:
            return "TRACE_FEEDBACK_JSON=" + json.dumps(env, ensure_ascii=False)

        cpu_before = resource.getrusage(resource.RUSAGE_SELF).ru_utime + resource.getrusage(resource.RUSAGE_SELF).ru_stime
        soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
        try:
            with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(captured):
                signal.setitimer(signal.ITIMER_REAL, timeout)
                cpu_limit = int(math.ceil(cpu_before + timeout)) + 1
                resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit if hard == resource.RLIM_INFINITY else min(cpu_limit, hard), hard))
                try:
                    try:
                        compiled = compile(full_code, "<string>", "exec")
                    except SyntaxError as error:
                        env = {"status": "error", "phase": "compile", "error": str(error)}
                        return answer(PENALTY, envelope(env) + f"\nAutonomous eval failed: {error}\n{traceback.format_exc(limit=3)}", "error")
                    namespace: dict = {}
                    exec(compiled, namespace, namespace)
                    func = namespace.get(entry)
                    if not callable(func):
                        candidates = [k for k, v in namespace.items() if callable(v) and getattr(getattr(v, "__code__", None), "co_filename", "") == "<string>"]
                        env = {"status": "error", "phase": "compile", "error": "entry_not_found", "candidates": candidates}
                        return answer(PENALTY, envelope(env) + f"\nEntry '{entry}' not found; candidates: {candidates}", "error")
                    score = evaluator.evaluate_program(full_code, func)
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
            details = None
            if isinstance(score, tuple) and len(score) >= 1:
                score, details = score[0], score[1:]
            if isinstance(score, dict) and "score" in score:
                details, score = score, score["score"]
            # Compat switches for upstream bugs (suites.md §1.7); off = the reference's behaviour.
            if request.get("vector_score") == "first" and hasattr(score, "__len__") and not isinstance(score, str) and len(score) > 0:
                score = score[0]
            if request.get("negate_score") and score is not None and not hasattr(score, "__len__"):
                score = -score
            # As the reference: numpy's isfinite, falling back to a type check when it raises; a
            # vector score makes `not finite` raise, which fails the evaluation (the 2O tasks).
            try:
                import numpy as np  # noqa: PLC0415
                finite = (score is not None) and np.isfinite(score)
            except Exception:  # noqa: BLE001
                finite = isinstance(score, (int, float))
            if not finite:
                env = {"status": "error", "phase": "evaluate", "error": "non_finite_score", "raw": str(score)}
                return answer(PENALTY, envelope(env), "error")
            env = {"status": "ok", "phase": "evaluate", "score": float(score)}
            if details is not None:
                env["details"] = details
            return answer(float(score), envelope(env) + "\n" + ok_line(score), "ok")
        except EvaluationTimeout:
            return answer(PENALTY, self.timeout_feedback(timeout_value), "timeout")
        except MemoryError:
            env = {"status": "error", "phase": "evaluate", "error": "MemoryError: the candidate exceeded the worker's memory limit"}
            return answer(PENALTY, envelope(env) + "\nAutonomous eval failed: the candidate exceeded the memory limit", "error")
        except Exception as error:  # noqa: BLE001 (any failure of candidate code is its score)
            env = {"status": "error", "phase": "evaluate", "error": str(error)}
            return answer(PENALTY, envelope(env) + f"\nAutonomous eval failed: {error}\n{traceback.format_exc(limit=3)}", "error")

    # -- protocol ------------------------------------------------------------------------------
    def handle(self, request: dict) -> dict:
        op = request.get("op")
        try:
            if op == "load":
                return {"id": request.get("id"), "ok": True, "task": self.load(request)}
            if op == "evaluate":
                return {"id": request.get("id"), "ok": True, "result": self.evaluate(request)}
            return {"id": request.get("id"), "ok": False, "error": {"kind": "protocol", "message": f"unknown op {op!r}"}}
        except ModuleNotFoundError as error:
            return {"id": request.get("id"), "ok": False, "error": {"kind": "missing_module", "name": error.name, "message": str(error)}}
        except FileNotFoundError as error:
            return {"id": request.get("id"), "ok": False, "error": {"kind": "missing_file", "name": error.filename or "", "message": str(error)}}
        except Exception as error:  # noqa: BLE001 (reported to the engine, which decides)
            return {"id": request.get("id"), "ok": False, "error": {"kind": "load_error", "message": f"{type(error).__name__}: {error}", "traceback": traceback.format_exc(limit=5)}}

    def send(self, message: dict) -> None:
        self.protocol.write(json.dumps(message, default=str) + "\n")
        self.protocol.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memory-mb", type=int, default=0)
    parser.add_argument("--loader-dir", required=True)
    args = parser.parse_args()
    try:
        # Linux: die with the engine, even when it is killed with SIGKILL (PR_SET_PDEATHSIG = 1).
        import ctypes  # noqa: PLC0415
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)
    except Exception:  # noqa: BLE001 (not Linux: the engine's exit handler kills the worker)
        pass
    # The protocol keeps the original stdout; fd 1 now points at stderr for everything else.
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    sys.path.insert(0, args.loader_dir)
    if args.memory_mb > 0:
        limit = args.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.signal(signal.SIGXCPU, _on_alarm)
    worker = Worker(protocol)
    worker.send({"ready": True, "pid": os.getpid()})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        request = json.loads(line)
        if request.get("op") == "exit":
            break
        worker.send(worker.handle(request))


if __name__ == "__main__":
    main()
