"""
trace-bench's LLM4AD evaluation worker: a long-lived python3 process speaking JSON lines.

Requests arrive one per line on stdin; answers go, one per line, to the stdout the worker had at
start. Everything else written to stdout or stderr (the task's prints, C libraries) goes to
stderr, so nothing can corrupt the protocol; a candidate's Python-level output is captured and
returned with its result.

  {"id": 1, "op": "load", "task": {"root", "module", "eval_kwargs"}, "instance": "<job>"}
      imports the task module once, builds its evaluator (its instances) once per instance key,
      and answers with the task's constants.
  {"id": 2, "op": "evaluate", "task": {...}, "instance": "<job>", "code": "<candidate>", "timeout": 30}
      runs the candidate as the reference's AutonomousEvaluatorGuide does (path A) and answers with
      {score, feedback, status, output}.

The worker is a warm template that never runs candidate code itself: a job's evaluations happen in a
child forked for that job, which gets a fresh scratch directory, no file descriptor of the protocol,
and its own limits (address space, CPU time, a wall-clock alarm per candidate). After each answer
every process the candidate started is killed, the scratch space and System V IPC objects are wiped;
the job's child serves the job's next candidate only if the candidate left it as it found it
running (one thread, no other process), else it is killed too. A request of another job (or a
timeout, or a child with no answer) kills the job's child and everything else first: no process
that ran one job's candidate ever runs, or lives beside, another job's candidate, which starts
from the untouched template. Only the job's own later candidates can see what a candidate changed
in its process (a patched function, a global), as every candidate of the original sees.

Started by the engine inside bubblewrap (see adapters/sandbox/), the worker is the init of its own
pid namespace (`--init`): "every other process" is then every process the candidate started,
detached or not. Run as root there, it first drops to an unprivileged uid of its own (`--uid`),
whose process count the kernel caps (`--max-processes`).
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import importlib.util
import io
import json
import math
import os
import resource
import select
import signal
import stat
import sys
import time
import traceback
from typing import Any, Callable

PENALTY = -1000000.0
# Sibling modules some task folders import by plain name: evicted between tasks (suites.md §1.12).
SHARED_HELPER_NAMES = ("get_instance", "train", "test_id", "test_odd", "feynman_equations", "strogatz_extended", "strogatz_equations")
MAX_OUTPUT = 20000
MAX_EVALUATORS = 8
# How long past its timeout a candidate's process may take to answer before it is killed: its own
# alarm normally answers first (with the timeout feedback and the output printed so far).
KILL_GRACE_SECONDS = 1.0


class EvaluationTimeout(Exception):
    pass


def _on_alarm(signum: int, frame: Any) -> None:
    raise EvaluationTimeout()


class Spare:
    """A child forked from the template, waiting on its request pipe; bound to a job by its first request."""

    def __init__(self, pid: int, request_fd: int, reply_fd: int, generation: int):
        self.pid = pid
        self.request_fd = request_fd
        self.reply_fd = reply_fd
        self.generation = generation
        # The job (instance) whose candidates it evaluates, once it has had a request.
        self.instance: str | None = None


def _write_frame(fd: int, payload: bytes) -> None:
    """One message on a pipe: its length (8 bytes, big-endian), then its bytes."""
    view = memoryview(len(payload).to_bytes(8, "big") + payload)
    while view:
        view = view[os.write(fd, view):]


def _read_exactly(fd: int, size: int) -> bytes | None:
    """`size` bytes from a blocking fd, or None at end of file."""
    chunks = []
    while size > 0:
        data = os.read(fd, min(size, 1 << 16))
        if not data:
            return None
        chunks.append(data)
        size -= len(data)
    return b"".join(chunks)


def _read_frame(fd: int) -> bytes | None:
    header = _read_exactly(fd, 8)
    return None if header is None else _read_exactly(fd, int.from_bytes(header, "big"))


class _StandIn:
    """The evaluator of a rehearsal: calls the entry function once and scores 0."""

    def evaluate_program(self, program_str: str, callable_func: Any, **kwargs: Any) -> float:
        return float(callable_func(0) or 0)


def _die_with_parent() -> None:
    try:
        # Linux: die with the parent, even when it is killed with SIGKILL (PR_SET_PDEATHSIG = 1).
        import ctypes  # noqa: PLC0415
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)
    except Exception:  # noqa: BLE001 (not Linux: the engine's exit handler kills the worker)
        pass


class Worker:
    def __init__(self, protocol: io.TextIOBase, scratch: str, is_init: bool):
        self.protocol = protocol
        self.modules: dict[str, Any] = {}
        self.evaluators: dict[str, Any] = {}
        # Where candidates may write: wiped after every evaluation.
        self.scratch = scratch
        self.is_init = is_init
        # Bumped whenever the template changes (a module imported, an evaluator built): a child
        # forked before then lacks it.
        self.generation = 0
        self.frozen_generation = -1
        # The next job's child, forked ahead of time (only while no job's child is alive, so that no
        # candidate can reach it): a fork is off the evaluation's path.
        self.spare: Spare | None = None
        # The child evaluating the current job's candidates, between its evaluations.
        self.job: Spare | None = None
        # The task of the last evaluation: a waiting child rehearses it (see _rehearse).
        self.last_task: dict | None = None
        # The last evaluation's request and answer: the template rehearses its part of them.
        self.last_exchange: tuple[dict, dict] | None = None
        # A child has been handed a request since the last sweep: the last one.
        self.dirty = False

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
        self.generation += 1
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
        self.generation += 1
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
        try:
            # The score check uses numpy: imported here once, not in every evaluation's child.
            import numpy  # noqa: F401, PLC0415
        except ImportError:
            pass
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

    # -- evaluation: one forked child per candidate -------------------------------------------
    def evaluate(self, request: dict) -> dict:
        task = request["task"]
        # Built here, in the template, so that every child starts from the same warm evaluator.
        self.evaluator(task, request.get("instance", ""))
        timeout_value = self.timeout_of(task)
        self.last_task = task
        instance = request.get("instance", "")
        if self.job is not None and self.job.instance != instance:
            self._sweep(None)  # another job's child, and whatever it left, never meets this job's candidate
        if self.job is None:
            self.job = self._take_spare()
            self.job.instance = instance
        child = self.job
        try:
            _write_frame(child.request_fd, json.dumps(request).encode())
        except OSError:
            pass  # the child died before reading: reported below as a child with no answer
        reply, timed_out = self._read_reply(child.reply_fd, float(timeout_value) + KILL_GRACE_SECONDS)
        if reply is not None:
            self.last_exchange = (request, reply)
            return reply  # swept once the answer is on its way (tidy_up), before the next request is read
        status = self._sweep(child.pid)
        if timed_out:
            return {"score": PENALTY, "feedback": self.timeout_feedback(timeout_value), "status": "timeout", "output": ""}
        why = f"signal {os.WTERMSIG(status)}" if status is not None and os.WIFSIGNALED(status) else f"exit code {os.WEXITSTATUS(status) if status is not None else '?'}"
        env = {"status": "error", "phase": "evaluate", "error": f"the candidate's process ended without an answer ({why}); a memory, CPU or process limit, or os._exit"}
        return {"score": PENALTY, "feedback": "TRACE_FEEDBACK_JSON=" + json.dumps(env) + f"\nAutonomous eval failed: {env['error']}", "status": "error", "output": ""}

    def tidy_up(self) -> None:
        """
        Between requests: kill what the last candidate started and wipe what it wrote, keeping its
        job's child when the candidate left nothing running in it; with no job's child alive, fork
        the next one ahead of time.
        """
        if self.job is not None:
            if self._job_child_idle():
                self._clear_leftovers()
            else:
                self._sweep(None)
        elif self.dirty:
            self._sweep(None)
        if self.evaluators and self.job is None:
            forking = self.spare is None or self.spare.generation != self.generation
            self._take_spare(keep=True)
            if forking:
                self._rehearse_template()

    def _rehearse_template(self) -> None:
        """
        Once a child is forked, the template too pays a page fault for each page it first writes to
        (the child shares them until then): walking its own part of the last evaluation now (the
        lookups, the JSON both ways) takes most of those before the next request comes.
        """
        if self.last_exchange is None:
            return
        request, reply = self.last_exchange
        try:
            task = json.loads(json.dumps(request))["task"]
            self.evaluators.get(json.dumps([task["root"], task["module"], task.get("eval_kwargs", {}), request.get("instance", "")], sort_keys=True))
            self.timeout_of(task)
            json.loads(json.dumps(reply))
            json.dumps({"id": request.get("id"), "ok": True, "result": reply}, default=str)
        except Exception:  # noqa: BLE001 (a rehearsal that fails leaves the next evaluation as it was)
            pass

    def _take_spare(self, keep: bool = False) -> "Spare":
        """A child forked from the template as it is now, waiting for its request (made now if there is none)."""
        spare = self.spare
        if spare is not None and spare.generation != self.generation:
            self._discard(spare)
            spare = None
        if spare is None:
            spare = self._fork_child()
        self.spare = spare if keep else None
        if not keep:
            self.dirty = True
        return spare

    def _job_child_idle(self) -> bool:
        """Whether the job's child is alive, waiting for its next request, with no thread or process of the candidate's left."""
        child = self.job
        try:
            with open(f"/proc/{child.pid}/status", encoding="ascii") as status:
                fields = dict(line.split(":", 1) for line in status.read().splitlines() if ":" in line)
        except OSError:
            return False
        if fields.get("State", "").split()[:1] not in (["S"], ["R"]) or fields.get("Threads", "").strip() != "1":
            return False
        return not self._other_processes(child.pid)

    def _other_processes(self, child: int) -> list[int]:
        """The processes a candidate started: in the sandbox every one but init and the child; else the child's group."""
        others = []
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) in (os.getpid(), child):
                continue
            if self.is_init:
                others.append(int(name))
                continue
            try:
                with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as stat_file:
                    fields = stat_file.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if len(fields) > 2 and fields[2] == str(child):  # its process group: started by the child
                others.append(int(name))
        return others

    def _clear_leftovers(self) -> None:
        """After a job's candidate that left its child idle: wipe what it wrote (the child's own folder kept, emptied)."""
        self.dirty = False
        _wipe(self.scratch, keep="candidate")
        _wipe(os.path.join(self.scratch, "candidate"))
        if self.is_init:
            _remove_ipc_objects()

    def _fork_child(self) -> "Spare":
        if self.frozen_generation != self.generation:
            # What the template holds moves out of the collector's sight: a child's collections then
            # do not write to (and copy) every page of the template's objects. A full collection
            # writes to every object, so only the first fork has one: after it every page of the
            # template is copy-on-write, and a collection would take a page fault for each.
            if self.frozen_generation < 0:
                gc.collect()
            gc.freeze()
            self.frozen_generation = self.generation
        workdir = os.path.join(self.scratch, "candidate")
        os.makedirs(workdir, exist_ok=True)
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            self._run_child(request_read, reply_write, workdir)
        os.close(request_read)
        os.close(reply_write)
        return Spare(pid, request_write, reply_read, self.generation)

    def _discard(self, spare: "Spare") -> None:
        """A waiting child that never ran code, forked before the template changed."""
        for fd in (spare.request_fd, spare.reply_fd):
            os.close(fd)
        try:
            os.kill(spare.pid, signal.SIGKILL)
            os.waitpid(spare.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass

    def _run_child(self, request_fd: int, reply_fd: int, workdir: str) -> None:
        """In the forked child: drop the protocol, wait for the request, apply the limits, evaluate, answer, exit."""
        code = 0
        try:
            self.protocol = None  # type: ignore[assignment]
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, 0)
            os.close(devnull)
            low, high = sorted((request_fd, reply_fd))
            os.closerange(3, low)
            os.closerange(low + 1, high)
            os.closerange(high + 1, 1 << 16)
            _die_with_parent()
            if not self.is_init:
                os.setsid()  # one process group to kill afterwards
            os.chdir(workdir)
            signal.signal(signal.SIGALRM, _on_alarm)
            signal.signal(signal.SIGXCPU, _on_alarm)
            self._rehearse()
            while True:
                data = _read_frame(request_fd)
                if data is None:
                    os._exit(0)  # the template went away, or is done with this child
                request = json.loads(data)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                result = self._evaluate_here(request)
                _write_frame(reply_fd, json.dumps(result, default=str).encode())
        except BaseException:  # noqa: BLE001 (the template reports a child that gave no answer)
            code = 1
        finally:
            os._exit(code)

    @staticmethod
    def _read_reply(fd: int, seconds: float) -> tuple[dict | None, bool]:
        """The child's JSON answer (one frame), or (None, timed_out) when it gave none."""
        deadline = time.monotonic() + seconds
        buffer = b""
        size = None
        # The engine's end closes the protocol's stdin: the template then exits at once (and, as init,
        # takes every process of its namespace with it) rather than when the evaluation is over.
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        poller.register(0, 0)
        while size is None or len(buffer) < 8 + size:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None, True
            events = dict(poller.poll(max(1, math.ceil(remaining * 1000))))
            if events.get(0, 0) & (select.POLLHUP | select.POLLERR):
                os._exit(0)
            if fd not in events:
                continue
            data = os.read(fd, 1 << 16)
            if not data:
                return None, False
            buffer += data
            if size is None and len(buffer) >= 8:
                size = int.from_bytes(buffer[:8], "big")
        try:
            reply = json.loads(buffer[8:8 + size])
        except ValueError:
            return None, False
        if not isinstance(reply, dict) or not isinstance(reply.get("score"), (int, float)) or not isinstance(reply.get("feedback"), str):
            return None, False
        return reply, False

    def _rehearse(self) -> None:
        """
        In a waiting child: the last task's evaluation path, run with a trivial entry function and a
        stand-in evaluator. A forked child pays a page fault for every page of the template it first
        writes to (reference counts included); rehearsing takes most of them before the request
        comes rather than on its way. Nothing of it is seen: the child's state is its own.
        """
        if self.last_task is None:
            return
        try:
            entry = self.module(self.last_task).ENTRY_NAME
            rehearsal = {"task": self.last_task, "code": f"def {entry}(*args, **kwargs):\n    return 0", "feedback_timing": False}
            json.dumps(self._evaluate_here(json.loads(json.dumps(rehearsal)), evaluator=_StandIn()), default=str)
        except BaseException:  # noqa: BLE001 (a rehearsal that fails leaves the real evaluation as it was)
            pass

    def _sweep(self, child: int | None) -> int | None:
        """Kills every process the evaluations left, reaps them, wipes the scratch space; `child`'s status."""
        self.dirty = False
        if self.spare is not None:
            self._discard(self.spare)
            self.spare = None
        job, self.job = self.job, None
        if job is not None:
            for fd in (job.request_fd, job.reply_fd):
                os.close(fd)
        child = child if child is not None else (job.pid if job is not None else 0)
        status: int | None = None
        if self.is_init:
            # As init of the pid namespace, kill(-1) reaches every process but this one.
            while True:
                try:
                    os.kill(-1, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                try:
                    pid, code = os.waitpid(-1, 0)
                    if pid == child:
                        status = code
                except ChildProcessError:
                    try:
                        os.kill(-1, 0)
                    except ProcessLookupError:
                        break
        elif child > 0:  # never 0: killpg(0) would be this worker's own group, the engine's too
            try:
                os.killpg(child, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                _, status = os.waitpid(child, 0)
            except ChildProcessError:
                pass
        _wipe(self.scratch)
        if self.is_init:
            _remove_ipc_objects()
        return status

    # -- evaluation (the reference's AutonomousEvaluatorGuide, path A), in the child -------------
    def _evaluate_here(self, request: dict, evaluator: Any = None) -> dict:
        task = request["task"]
        module = self.module(task)
        evaluator = evaluator if evaluator is not None else self.evaluator(task, request.get("instance", ""))
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


def _wipe(scratch: str, keep: str | None = None) -> None:
    """Removes what candidates wrote under `scratch` (but the entry `keep`), never descending into another mount (a read-only bind)."""
    try:
        device = os.lstat(scratch).st_dev
        names = os.listdir(scratch)
    except OSError:
        return
    for name in names:
        if name == keep:
            continue
        path = os.path.join(scratch, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if info.st_dev != device:
            continue
        if stat.S_ISDIR(info.st_mode):
            try:
                os.chmod(path, 0o700)  # a candidate may have made it unreadable
            except OSError:
                pass
            _wipe(path)
            try:
                os.rmdir(path)
            except OSError:
                pass
        else:
            try:
                os.unlink(path)
            except OSError:
                pass


def _remove_ipc_objects() -> None:
    """Removes the System V shared memory, queues and semaphores a candidate left in this IPC namespace."""
    try:
        import ctypes  # noqa: PLC0415
        libc = ctypes.CDLL(None, use_errno=True)
    except Exception:  # noqa: BLE001
        return
    ipc_rmid = 0
    for kind, remove in (("shm", lambda i: libc.shmctl(i, ipc_rmid, None)), ("msg", lambda i: libc.msgctl(i, ipc_rmid, None)), ("sem", lambda i: libc.semctl(i, 0, ipc_rmid))):
        try:
            with open(f"/proc/sysvipc/{kind}", encoding="ascii") as table:
                rows = table.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 1 and fields[1].isdigit():
                remove(int(fields[1]))


def _drop_privileges(uid: int, max_processes: int) -> None:
    """Leaves root for a uid of this worker's own (no capabilities) and caps its process count."""
    if uid > 0 and os.getuid() == 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    if max_processes > 0:
        resource.setrlimit(resource.RLIMIT_NPROC, (max_processes, max_processes))
    try:
        import ctypes  # noqa: PLC0415
        libc = ctypes.CDLL(None)
        libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS: no setuid program regains what was dropped
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: a candidate cannot read or write the template's memory
    except Exception:  # noqa: BLE001 (not Linux)
        pass


def start_confined(args: argparse.Namespace, name: str):
    """Confines this worker as its arguments say (--init, --uid, --max-processes) and returns the protocol's stream.

    The protocol keeps the original stdout; fd 1 then points at stderr, so nothing a request prints
    can forge an answer. Shared by this worker and the one-request workers (sandbox_worker.py).
    """
    if args.init and os.getpid() != 1:
        # kill(-1) outside a pid namespace of its own would reach every process of the user.
        sys.exit(f"{name}: --init needs a pid namespace of its own (pid 1)")
    _drop_privileges(args.uid, args.max_processes)
    _die_with_parent()
    # Ctrl-C reaches the whole process group: the engine closes the pool, the worker keeps quiet.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


def answer_requests(answer: Callable[[dict], None]) -> None:
    """Hands `answer` one JSON request per line of stdin, until stdin closes or a request says `exit`."""
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        request = json.loads(line)
        if request.get("op") == "exit":
            break
        answer(request)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memory-mb", type=int, default=0)
    parser.add_argument("--loader-dir", required=True)
    parser.add_argument("--scratch", required=True, help="the folder candidates may write in, wiped after each evaluation")
    parser.add_argument("--init", action="store_true", help="this worker is the init of its own pid namespace")
    parser.add_argument("--uid", type=int, default=0, help="when root, run as this uid")
    parser.add_argument("--max-processes", type=int, default=0)
    args = parser.parse_args()
    protocol = start_confined(args, "trace_bench_worker")
    sys.path.insert(0, args.loader_dir)
    if args.memory_mb > 0:
        limit = args.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    os.makedirs(args.scratch, exist_ok=True)
    worker = Worker(protocol, args.scratch, args.init)
    worker.send({"ready": True, "pid": os.getpid()})

    def answer(request: dict) -> None:
        worker.send(worker.handle(request))
        worker.tidy_up()

    answer_requests(answer)

if __name__ == "__main__":
    main()
