/**
 * The LLM4AD suite against real python3 workers: bundles as the reference builds them, candidate
 * code scored as its AutonomousEvaluatorGuide scores it, and the sandbox's limits (timeouts that
 * kill the candidate's process, memory, secrets, no process left behind).
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BENCH_CONSTRAINTS, Llm4adSuite, PENALTY_SCORE } from "../../../adapters/tasks/llm4ad/llm4ad-suite.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { REPO_ROOT } from "../../support/cli.js";
import { descendsFrom, processesNamed } from "../../support/process-names.js";
import { isRunning, until } from "../../support/processes.js";

const INDEXED = join(REPO_ROOT, "test", "fixtures", "llm4ad", "indexed");
const suites: Llm4adSuite[] = [];
afterEach(() => {
  for (const suite of suites.splice(0)) suite.close();
});

function suite(root = INDEXED, memoryMb = 1024): Llm4adSuite {
  const s = new Llm4adSuite(root, { workers: 1, memoryMb });
  suites.push(s);
  return s;
}

async function score(bundle: TaskBundle, code: string, logs: string[] = []) {
  return bundle.guide.evaluate(bundle.train_dataset.inputs[0], code, bundle.train_dataset.infos[0], { log: (text) => logs.push(text) });
}

const envelope = (feedback: string) => JSON.parse(feedback.split("\n")[0]!.slice("TRACE_FEEDBACK_JSON=".length)) as Record<string, unknown>;
/** Waits (up to 3 s) for the processes to end; returns those still alive. */
async function survivors(pids: readonly number[]): Promise<number[]> {
  await until(() => !pids.some(isRunning), 3000, 100);
  return pids.filter(isRunning);
}

describe("LLM4AD bundles", () => {
  it("a task is a bare code parameter with the signature and the bench-added constraints; the objective and memory size come from the task", async () => {
    const bundle = await suite().load("llm4ad:toy/double", {});
    expect(bundle.parameters).toEqual([
      { name: "__code", kind: "code", value: "def f(x: int) -> int:\n    return x", description: `The code should start with: def f(x: int) -> int:${BENCH_CONSTRAINTS}`, trainable: true },
    ]);
    expect(bundle.agent.run("anything", { __code: "def f(x): pass" }, {})).toBe("def f(x): pass");
    expect(bundle.optimizer_kwargs).toEqual({ objective: "You are optimizing the implementation of `f`.", memory_size: 10 });
    expect(bundle.train_dataset).toEqual({ inputs: ["Return twice the input."], infos: [{ imports: "import math\nimport numpy as np", entry: "f" }] });
    expect(bundle.metadata).toEqual({ entry: "f", function_signature: "def f(x: int) -> int:", eval_class: "DoubleEvaluation", benchmark: true });
  });

  it("a task whose Python dependency is missing is unavailable (the job is skipped), naming the module", async () => {
    await expect(suite().load("llm4ad:toy/needs_missing", {})).rejects.toMatchObject({ _tag: "TaskUnavailableError", message: expect.stringContaining("'not_a_real_module_for_trace_bench_tests'") });
  });

  it("an unknown key is not found, and says how to list the tasks", async () => {
    await expect(suite().load("llm4ad:nope", {})).rejects.toMatchObject({ _tag: "TaskNotFoundError", message: expect.stringContaining("unknown LLM4AD task 'nope'") });
  });
});

describe("scoring candidate code as the reference does", () => {
  it("a correct candidate scores its fitness, with the reference's feedback lines; its prints go to the job's log", async () => {
    const bundle = await suite().load("llm4ad:toy/double", {});
    const logs: string[] = [];
    const result = await score(bundle, "def f(x):\n    print('hello from the candidate')\n    return 2 * x", logs);
    expect(result.score).toBe(-0);
    expect(result.feedback).toBe('TRACE_FEEDBACK_JSON={"status": "ok", "phase": "evaluate", "score": -0.0}\nAutonomous eval OK; score=-0.0');
    expect(logs.join("")).toContain("hello from the candidate");
    const template = await score(bundle, String(bundle.parameters[0]!.value));
    expect(template.score).toBe(-45);
  });

  it("compat switches for upstream bugs, off by default as in the reference: negate_score, vector_score: first", async () => {
    const s = suite();
    expect((await score(await s.load("llm4ad:toy/double", { negate_score: true }), "def f(x):\n    return x")).score).toBe(45);
    const vector = await score(await s.load("llm4ad:toy/double", { as_vector: true }), "def f(x):\n    return x");
    expect(vector.score).toBe(PENALTY_SCORE);
    expect(vector.feedback).toMatch(/^TRACE_FEEDBACK_JSON=\{"status": "error", "phase": "evaluate", "error": "The truth value of an array with more than one element is ambiguous/);
    expect((await score(await s.load("llm4ad:toy/double", { as_vector: true, vector_score: "first" }), "def f(x):\n    return x")).score).toBe(-45);
  });

  it("feedback_timing: true restores the reference's 'OK in <s>' line", async () => {
    const bundle = await suite().load("llm4ad:toy/double", { feedback_timing: true });
    expect((await score(bundle, "def f(x):\n    return 2 * x")).feedback).toMatch(/\nAutonomous eval OK in \d+\.\d\ds; score=-0\.0$/);
  });

  it.each([
    ["a syntax error", "compile", "def f(x:\n    return x", /was never closed|invalid syntax/],
    ["a wrong function name", "compile", "def g(x):\n    return 2 * x", /^entry_not_found$/],
    ["an exception", "evaluate", "def f(x):\n    raise ValueError('boom')", /^boom$/],
    ["a NaN score", "evaluate", "def f(x):\n    return float('nan')", /^non_finite_score$/],
  ])("%s scores -1,000,000 with feedback phase %s", async (_what, phase, code, error) => {
    const bundle = await suite().load("llm4ad:toy/double", {});
    const result = await score(bundle, code);
    expect(result.score).toBe(PENALTY_SCORE);
    expect(envelope(result.feedback)).toMatchObject({ status: "error", phase });
    expect(String(envelope(result.feedback).error)).toMatch(error);
  });

  it("a candidate that loops forever is stopped at the task's timeout (-1,000,000, timeout feedback) and the worker serves the next one", async () => {
    const bundle = await suite().load("llm4ad:toy/double", {});
    const result = await score(bundle, "def f(x):\n    while True:\n        pass");
    expect(result).toEqual({ score: PENALTY_SCORE, feedback: 'TRACE_FEEDBACK_JSON={"status": "timeout", "phase": "evaluate", "timeout_seconds": 2}\nEvaluation timed out after 2s' });
    expect((await score(bundle, "def f(x):\n    return 2 * x")).score).toBe(-0);
  });

  it("a candidate that swallows the timeout is killed a second after it; the worker, which never ran it, serves the next one", async () => {
    const s = suite();
    const bundle = await s.load("llm4ad:toy/double", {});
    const [before] = s.workerPids();
    const stubborn = "def f(x):\n    while True:\n        try:\n            while True:\n                pass\n        except BaseException:\n            pass";
    const started = Date.now();
    const result = await score(bundle, stubborn);
    expect(result.score).toBe(PENALTY_SCORE);
    expect(envelope(result.feedback)).toEqual({ status: "timeout", phase: "evaluate", timeout_seconds: 2 });
    // Killed by its template at timeout + 1 s, not by the engine at timeout + 5 s.
    expect(Date.now() - started).toBeLessThan(6_500);
    expect((await score(bundle, "def f(x):\n    return 2 * x")).score).toBe(-0);
    expect(s.workerPids()).toEqual([before]);
  }, 30_000);

  it("a candidate that allocates without bound is stopped by the memory limit", async () => {
    const bundle = await suite(INDEXED, 512).load("llm4ad:toy/double", {});
    // bytes(n) reserves without writing: filling 450 MB of bytearrays took 1–2.5 s on a loaded
    // machine, near the task's 2 s time limit, which then answered first.
    const result = await score(bundle, "def f(x):\n    blocks = []\n    while True:\n        blocks.append(bytes(50 * 1024 * 1024))");
    expect(result.score).toBe(PENALTY_SCORE);
    expect(envelope(result.feedback)).toMatchObject({ status: "error", phase: "evaluate", error: expect.stringContaining("MemoryError") });
    expect((await score(bundle, "def f(x):\n    return 2 * x")).score).toBe(-0);
  });

  it("candidate code cannot see API keys, tokens or secrets in its environment", async () => {
    process.env.TRACE_BENCH_TEST_API_KEY = "sk-must-not-leak";
    process.env.SOME_SERVICE_TOKEN = "tok";
    try {
      const bundle = await suite().load("llm4ad:toy/double", {});
      const probe = "import os\ndef f(x):\n    leaked = [k for k in os.environ if k.endswith(('_API_KEY', '_TOKEN', '_SECRET'))]\n    return 2 * x if not leaked else 0";
      expect((await score(bundle, probe)).score).toBe(-0);
      const control = "import os\ndef f(x):\n    return 2 * x if 'PATH' in os.environ else 0";
      expect((await score(bundle, control)).score).toBe(-0);
    } finally {
      delete process.env.TRACE_BENCH_TEST_API_KEY;
      delete process.env.SOME_SERVICE_TOKEN;
    }
  });

  it("concurrent evaluations from several jobs each get their own answer, spread over the pool's workers", async () => {
    const s = new Llm4adSuite(INDEXED, { workers: 2, memoryMb: 1024 });
    suites.push(s);
    const [a, b] = [await s.load("llm4ad:toy/double", {}), await s.load("llm4ad:toy/double", {})];
    const programs = [0, 1, 2, 3, 4, 5].map((k) => `def f(x):\n    return 2 * x + ${k}`);
    const results = await Promise.all(programs.map((code, i) => score(i % 2 === 0 ? a : b, code)));
    expect(results.map((r) => r.score)).toEqual([-0, -10, -20, -30, -40, -50]);
    expect(s.workerPids()).toHaveLength(2);
  });

  it("an aborted evaluation kills its worker at once; close() leaves no python process", async () => {
    const s = suite();
    const bundle = await s.load("llm4ad:toy/double", {});
    const controller = new AbortController();
    // The candidate names its process once it runs: the evaluation is under way.
    const name = `cand-${process.pid % 100000}`;
    const code = `import ctypes, time\nctypes.CDLL(None).prctl(15, b"${name}", 0, 0, 0)\ndef f(x):\n    time.sleep(60)\n    return x`;
    const running = bundle.guide.evaluate(null, code, null, { signal: controller.signal });
    const [pid] = s.workerPids();
    expect(await until(() => processesNamed(name).some((candidate) => descendsFrom(candidate, pid!)), 20_000)).toBe(true);
    controller.abort(new Error("cancelled"));
    await expect(running).rejects.toThrow();
    expect(await survivors([pid!])).toEqual([]);
    await score(bundle, "def f(x):\n    return 2 * x");
    const pids = s.workerPids();
    expect(pids.length).toBe(1);
    s.close();
    expect(await survivors(pids)).toEqual([]);
  });
});
