#!/usr/bin/env node
// The LLM4AD bridge's costs: what evaluating a candidate through the pool of python3 workers
// (Llm4adSuite → SandboxWorkerPool → trace_bench_worker.py) adds, in-process (imports dist/).
//
//   1. per-evaluation overhead, warm worker: N sequential evaluations of a trivial task, 100 ms
//      apart as a job's are (its LLM calls come between), then back to back; then two jobs taking
//      turns on the worker, so that every evaluation is a fresh process forked for its job
//   2. throughput with 1 vs 2 workers: 100 concurrent evaluations of a task costing ~20 ms of CPU
//   3. cold start: a fresh pool's first `load` (spawn python3, start the worker, import the task
//      module, build its evaluator), then that worker's first evaluation
//   4. the bundled optimization/tsp_construct task: load and one evaluation of its template
//   5. no python3 worker outlives its pool (checked with ps and /proc/<pid>/cwd)
//
//   node bench/llm4ad-bridge.mjs                 prints its own table (needs `npm run build`)
//   node bench/llm4ad-bridge.mjs --json --dir D  works in D (made by the caller, e.g. run-all.mjs)
//                                                and prints {rows, notes, failures} as JSON on stdout
//                                                (a failed measurement is a row with an `error`)
//
// The workers' temporary directories are put under the workspace (TMPDIR), which is how the
// leftover check tells this script's workers from any other python3 on the machine.
import { spawnSync } from "node:child_process";
import { mkdirSync, readlinkSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { fmt, printReport, scriptArgs } from "./report.mjs";
import { benchWorkspace } from "./workspace.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SEQUENTIAL = 300;
/** Evaluations of two jobs taking turns on one worker (row 1's job switches). */
const SWITCHES = 40;
const WARMUP = 30;
/** The pause between two evaluations in row 1 (a job's LLM call takes far longer). */
const GAP_MS = 100;
const CONCURRENT = 100;
const COLD_RUNS = 5;
const CPU_MS = 20;
/** A measurement with no result by then has lost a request (the pool answers or kills within 35 s). */
const DEADLINE_MS = 60_000;

const { asJson, dir } = scriptArgs();
const workDir = dir ?? benchWorkspace("trace-bench-llm4ad-").dir;
mkdirSync(workDir, { recursive: true });
// os.tmpdir() is read at each spawn: the pool's per-worker directories land in the workspace.
const workerTmp = join(workDir, "worker-tmp");
mkdirSync(workerTmp, { recursive: true });
process.env.TMPDIR = workerTmp;

const { Llm4adSuite, bundledLlm4adRoot } = await import(join(ROOT, "dist/adapters/tasks/llm4ad/llm4ad-suite.js"));
const { SandboxWorkerPool } = await import(join(ROOT, "dist/adapters/sandbox/worker-pool.js"));
const { pythonWorkerPool } = await import(join(ROOT, "dist/adapters/sandbox/python-sandbox.js"));
const PYTHON_DIR = join(ROOT, "adapters", "tasks", "llm4ad", "python");
const LOADER_INSIDE = "/trace-bench/loader";
/** A bare pool like the suite's (same script, sandbox, limits and environment), for the protocol floor. */
const rawPool = () =>
  new SandboxWorkerPool(
    pythonWorkerPool({
      script: (inside) => join(inside ? LOADER_INSIDE : PYTHON_DIR, "trace_bench_worker.py"),
      scriptArgs: (inside) => ["--loader-dir", inside ? LOADER_INSIDE : PYTHON_DIR, "--memory-mb", "4096"],
      readOnly: [{ host: PYTHON_DIR, inside: LOADER_INSIDE }],
      env: () => ({}),
      size: 1,
    }).options,
  );

// ---------------------------------------------------------------------------------------------
// Tasks written for the bench: a root with an index.json and one folder per task.

const tasksRoot = join(workDir, "tasks");
const TASKS = {
  trivial: { cls: "TrivialEvaluation", body: "return float(callable_func(1))" },
  cpu20: {
    cls: "Cpu20Evaluation",
    // ~20 ms of CPU time in Python per evaluation, whatever the machine's speed.
    body: `started = time.process_time()\n        while time.process_time() - started < ${CPU_MS / 1000}:\n            pass\n        return float(callable_func(1))`,
  },
};
mkdirSync(tasksRoot, { recursive: true });
for (const [name, { cls, body }] of Object.entries(TASKS)) {
  mkdirSync(join(tasksRoot, name), { recursive: true });
  writeFileSync(
    join(tasksRoot, name, "__init__.py"),
    [
      `"""trace-bench bench task '${name}'."""`,
      "import time",
      "",
      "from llm4ad_loader import Evaluation",
      "",
      'ENTRY_NAME = "f"',
      'FUNCTION_SIGNATURE = "def f(x):"',
      'IMPORT_HEADER = ""',
      `TASK_DESCRIPTION = "Bench task ${name}: return x."`,
      'OBJECTIVE_TEXT = "Return x."',
      'TEMPLATE_FUNCTION = "def f(x):\\n    return x"',
      `EVAL_CLASS_NAME = "${cls}"`,
      "EVAL_KWARGS = {}",
      "",
      "",
      `class ${cls}(Evaluation):`,
      "    def evaluate_program(self, program_str, callable_func, **kwargs):",
      `        ${body}`,
      "",
    ].join("\n"),
  );
}
writeFileSync(join(tasksRoot, "index.json"), JSON.stringify(Object.keys(TASKS).map((key) => ({ key, module: key }))));

// ---------------------------------------------------------------------------------------------
// Helpers.

const rows = []; // in order: measured rows and failed measurements ({ error }) alike
const notes = [];
let failures = 0;
const openSuites = new Set();
const openPools = new Set();

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** `key`: the row's target in docs/performance.md ("## Targets"); none: informational. */
function row(id, measurement, value, unit, digits, key = undefined) {
  rows.push({ id, measurement, value, unit, digits, ...(key === undefined ? {} : { key }) });
}

/** Runs one measurement; an error, or no result within DEADLINE_MS (a lost request), becomes an ERROR row. */
async function measure(id, measurement, unit, fn) {
  let timer;
  const state = { detail: "" }; // what the measurement had got to, for the deadline's message
  try {
    const deadline = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no result within ${DEADLINE_MS / 1000} s: a request got no answer (lost or hung)${state.detail ? ` — ${state.detail}` : ""}; its pools were closed`)), DEADLINE_MS);
    });
    return await Promise.race([fn(state), deadline]);
  } catch (error) {
    failures += 1;
    rows.push({ id, measurement, unit, error: error instanceof Error ? error.message : String(error) });
    return undefined;
  } finally {
    clearTimeout(timer);
    // A measurement that failed half-way leaves its suites and pools open: close them now.
    for (const s of openSuites) closeSuite(s);
    for (const p of openPools) {
      for (const pid of p.pids?.() ?? []) seenPids.add(pid);
      p.close();
      openPools.delete(p);
    }
  }
}

function progress(text) {
  process.stderr.write(`bench: llm4ad ${text}\n`);
}

function suite(root, workers) {
  const s = new Llm4adSuite(root, { workers, memoryMb: 4096 });
  openSuites.add(s);
  return s;
}
/** Every worker pid a pool reported before it was closed: none may be alive at the end. */
const seenPids = new Set();
function closeSuite(s) {
  for (const pid of s.workerPids?.() ?? []) seenPids.add(pid);
  s.close();
  openSuites.delete(s);
}

const CODE = "def f(x):\n    return x";

/** One evaluation through the bundle's guide; checks that it scored. */
async function evaluate(bundle, code = CODE) {
  const result = await bundle.guide.evaluate(bundle.train_dataset.inputs[0], code, bundle.train_dataset.infos[0], {});
  if (!(result.score > -1e6)) throw new Error(`evaluation did not score: ${result.feedback.slice(0, 300)}`);
  return result;
}

async function timed(fn) {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

function pythonMs(code, runs = 5) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const r = spawnSync("python3", ["-c", code], { stdio: "ignore" });
    if (r.status !== 0) return NaN;
    times.push(performance.now() - started);
  }
  return median(times);
}

/** Which python3 runs, and what a launcher in front of it (a pyenv shim) costs. */
function pythonWhich() {
  const onPath = spawnSync("sh", ["-c", "command -v python3"], { encoding: "utf8" }).stdout.trim();
  const real = spawnSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).stdout.trim();
  if (!real || real === onPath) return `python3 = ${onPath}`;
  const times = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    spawnSync(real, ["-c", "pass"], { stdio: "ignore" });
    times.push(performance.now() - t);
  }
  return `python3 on PATH = ${onPath} (a launcher for ${real}, whose own \`-c pass\` takes ${fmt(median(times), 1)} ms)`;
}

// ---------------------------------------------------------------------------------------------
// Measurements.

const started = performance.now();

// 1. Per-evaluation overhead, one warm worker.
progress(`1/5 ${SEQUENTIAL} sequential evaluations of a trivial task (after ${WARMUP} warm-up) ...`);
await measure("1", "per-evaluation overhead", "ms", async () => {
  const s = suite(tasksRoot, 1);
  try {
    const bundle = await s.load("llm4ad:trivial", {});
    for (let i = 0; i < WARMUP; i++) await evaluate(bundle);
    // A job's evaluations are separated by its LLM calls (seconds in mode real); the worker sweeps
    // after a candidate in that time. GAP_MS is far shorter. Each runs in the job's own process.
    const times = [];
    for (let i = 0; i < SEQUENTIAL; i++) {
      await new Promise((resolve) => setTimeout(resolve, GAP_MS));
      times.push((await timed(() => evaluate(bundle))).ms);
    }
    const backToBack = [];
    for (let i = 0; i < SEQUENTIAL; i++) backToBack.push((await timed(() => evaluate(bundle))).ms);
    row("1", `trivial task, guide.evaluate, 1 warm worker: median of ${SEQUENTIAL} sequential, ${GAP_MS} ms apart`, median(times), "ms", 2, "llm4ad-evaluate");
    row("1", `trivial task, guide.evaluate, 1 warm worker: p95 of ${SEQUENTIAL}, ${GAP_MS} ms apart`, percentile(times, 95), "ms", 2);
    row("1", `trivial task, guide.evaluate, 1 warm worker: median of ${SEQUENTIAL} back to back (each also waits for the last one's sweep)`, median(backToBack), "ms", 2);
    notes.push(`#1 ${GAP_MS} ms apart, min/p99/max: ${fmt(Math.min(...times), 2)} / ${fmt(percentile(times, 99), 2)} / ${fmt(Math.max(...times), 2)} ms; back to back p95 ${fmt(percentile(backToBack, 95), 2)} ms`);
  } finally {
    closeSuite(s);
  }
  // The protocol floor: a raw pool round trip that Python answers without evaluating (unknown op).
  const pool = rawPool();
  openPools.add(pool);
  try {
    const ping = () => pool.request({ message: { op: "ping" }, hardTimeoutMs: 30_000 });
    for (let i = 0; i < WARMUP; i++) await ping();
    const times = [];
    for (let i = 0; i < SEQUENTIAL; i++) times.push((await timed(ping)).ms);
    notes.push(`#1 floor: a raw pool round trip Python answers at once (unknown op) takes ${fmt(median(times), 3)} ms median, ${fmt(percentile(times, 95), 3)} ms p95; the rest is handing the request to the job's child, compile + exec of the candidate, the limits (setitimer, setrlimit), output capture and the score check`);
  } finally {
    for (const pid of pool.pids?.() ?? []) seenPids.add(pid);
    pool.close();
    openPools.delete(pool);
  }
});

// 1, continued: two jobs taking turns on one worker, so that each evaluation ends the other job's
// process and runs in a fresh child forked for its job (a worker shared by interleaved jobs).
progress(`1/5 ${SWITCHES} evaluations of two jobs taking turns ...`);
await measure("1", "job switches", "ms", async () => {
  const s = suite(tasksRoot, 1);
  try {
    const jobs = [await s.load("llm4ad:trivial", {}), await s.load("llm4ad:trivial", {})];
    for (let i = 0; i < 4; i++) await evaluate(jobs[i % 2]);
    const turns = [];
    for (let i = 0; i < SWITCHES; i++) {
      await new Promise((resolve) => setTimeout(resolve, GAP_MS));
      turns.push((await timed(() => evaluate(jobs[i % 2]))).ms);
    }
    row("1", `trivial task, 2 jobs taking turns on 1 worker (each evaluation a fresh child for its job): median of ${SWITCHES}, ${GAP_MS} ms apart`, median(turns), "ms", 2);
    notes.push(`#1 jobs taking turns: p95 ${fmt(percentile(turns, 95), 2)} ms`);
  } finally {
    closeSuite(s);
  }
});

// 2. Throughput, 1 vs 2 workers.
progress(`2/5 ${CONCURRENT} concurrent ~${CPU_MS} ms evaluations, 1 then 2 workers ...`);
const throughput = {};
for (const workers of [1, 2]) {
  const label = `~${CPU_MS} ms CPU task, ${CONCURRENT} concurrent evaluations, ${workers} worker${workers > 1 ? "s" : ""}: throughput`;
  await measure("2", label, "evals/s", async (state) => {
    const s = suite(tasksRoot, workers);
    try {
      const bundle = await s.load("llm4ad:cpu20", {});
      // Warm every worker: enough concurrent evaluations to start them all and load the task in each.
      let answered = 0;
      state.detail = `warm-up: 0 of ${workers * 2} concurrent evaluations answered`;
      await Promise.all(
        Array.from({ length: workers * 2 }, async () => {
          await evaluate(bundle);
          state.detail = `warm-up: ${++answered} of ${workers * 2} concurrent evaluations answered`;
        }),
      );
      const seq = [];
      for (let i = 0; i < 5; i++) seq.push((await timed(() => evaluate(bundle))).ms);
      answered = 0;
      state.detail = `0 of ${CONCURRENT} concurrent evaluations answered`;
      const { ms } = await timed(() =>
        Promise.all(
          Array.from({ length: CONCURRENT }, async () => {
            await evaluate(bundle);
            state.detail = `${++answered} of ${CONCURRENT} concurrent evaluations answered`;
          }),
        ),
      );
      throughput[workers] = CONCURRENT / (ms / 1000);
      row("2", label, throughput[workers], "evals/s", 1);
      notes.push(`#2 ${workers} worker${workers > 1 ? "s" : ""}: ${CONCURRENT} evaluations in ${fmt(ms / 1000, 2)} s; one evaluation alone: ${fmt(median(seq), 1)} ms (median of 5), i.e. at most ${fmt((1000 / median(seq)) * workers, 1)} evals/s`);
    } finally {
      closeSuite(s);
    }
  });
}
if (throughput[1] && throughput[2]) {
  const cores = availableParallelism();
  row("2", "throughput, 2 workers / 1 worker", throughput[2] / throughput[1], "x", 2, cores >= 3 ? "llm4ad-scaling" : undefined);
  if (cores < 3) notes.push(`#2 only ${cores} CPUs: the engine's own thread competes with the 2 workers, so the ratio is informational here (its target, llm4ad-scaling in docs/performance.md, applies with ≥ 3 CPUs)`);
}

// 3. Cold start: a fresh pool's first request.
progress(`3/5 cold start x${COLD_RUNS} ...`);
await measure("3", "cold start", "ms", async () => {
  const loads = [];
  const firstEvals = [];
  const secondEvals = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    const s = suite(tasksRoot, 1);
    try {
      const { ms, value: bundle } = await timed(() => s.load("llm4ad:trivial", {}));
      loads.push(ms);
      firstEvals.push((await timed(() => evaluate(bundle))).ms);
      secondEvals.push((await timed(() => evaluate(bundle))).ms);
    } finally {
      closeSuite(s);
    }
  }
  row("3", `cold start: fresh pool's first load (spawn python3 + worker start + task import + evaluator), median of ${COLD_RUNS}`, median(loads), "ms", 1);
  row("3", `cold start: that worker's first evaluation (imports numpy for the score check), median of ${COLD_RUNS}`, median(firstEvals), "ms", 1);
  const pings = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    const pool = rawPool();
    openPools.add(pool);
    try {
      pings.push((await timed(() => pool.request({ message: { op: "ping" }, hardTimeoutMs: 30_000 }))).ms);
    } finally {
      for (const pid of pool.pids?.() ?? []) seenPids.add(pid);
      pool.close();
      openPools.delete(pool);
    }
  }
  notes.push(
    `#3 loads: ${loads.map((t) => fmt(t, 0)).join(", ")} ms; first evaluations: ${firstEvals.map((t) => fmt(t, 0)).join(", ")} ms; second: ${fmt(median(secondEvals), 2)} ms median. ` +
      `Parts (medians of ${COLD_RUNS}): fresh pool's first request with nothing to load (spawn + worker start + one round trip): ${fmt(median(pings), 1)} ms; ` +
      `bare \`python3 -c pass\`: ${fmt(pythonMs("pass"), 1)} ms; \`python3 -c 'import numpy'\`: ${fmt(pythonMs("import numpy"), 1)} ms; ${pythonWhich()}`,
  );
});

// 4. The bundled TSP task.
progress("4/5 bundled optimization/tsp_construct ...");
await measure("4", "tsp_construct", "ms", async () => {
  const s = suite(bundledLlm4adRoot(), 1);
  try {
    const { ms: loadMs, value: bundle } = await timed(() => s.load("llm4ad:optimization/tsp_construct", {}));
    const code = bundle.parameters[0].value;
    const first = await timed(() => evaluate(bundle, code));
    const again = [];
    for (let i = 0; i < 3; i++) again.push((await timed(() => evaluate(bundle, code))).ms);
    row("4", "bundled optimization/tsp_construct: one evaluation of its template, wall (first on the worker)", first.ms, "ms", 1);
    notes.push(`#4 tsp_construct (8 instances x 30 cities): cold load ${fmt(loadMs, 0)} ms (imports numpy, builds the instances); first evaluation ${fmt(first.ms, 1)} ms, then ${again.map((t) => fmt(t, 1)).join(", ")} ms; score ${fmt(first.value.score, 4)}`);
  } finally {
    closeSuite(s);
  }
});

// 5. Every pool closed: no python3 worker left.
progress("5/5 leftover python3 workers ...");
for (const s of openSuites) closeSuite(s);
for (const p of openPools) {
  for (const pid of p.pids?.() ?? []) seenPids.add(pid);
  p.close();
}

function ourWorkers() {
  const ps = spawnSync("ps", ["-eo", "pid=,ppid=,stat=,args="], { encoding: "utf8" });
  if (ps.status !== 0) throw new Error(`ps failed: ${ps.stderr}`);
  return ps.stdout
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((m) => m !== null)
    .map(([, pid, ppid, stat, args]) => ({ pid: Number(pid), ppid: Number(ppid), stat, args }))
    .filter((p) => {
      if (p.pid === process.pid) return false;
      if (seenPids.has(p.pid) && p.args.includes("trace_bench_worker.py")) return true;
      if (p.ppid === process.pid && p.args.includes("trace_bench_worker.py")) return true;
      try {
        return readlinkSync(`/proc/${p.pid}/cwd`).startsWith(workerTmp);
      } catch {
        return false;
      }
    });
}

await measure("5", "python3 workers left after every pool closed", "processes", async () => {
  // SIGKILL is sent at close(); give the kernel and execa a moment to reap.
  let left = ourWorkers();
  for (let waited = 0; left.length > 0 && waited < 3000; waited += 100) {
    await new Promise((r) => setTimeout(r, 100));
    left = ourWorkers();
  }
  if (left.length > 0) {
    const list = left.map((p) => `${p.pid} (${p.stat}) ${p.args.slice(0, 120)}`).join("; ");
    for (const p of left) {
      try {
        process.kill(p.pid, "SIGKILL"); // ours: started by this script's pools
      } catch {}
    }
    throw new Error(`${left.length} python3 worker(s) still running 3 s after every pool was closed: ${list}`);
  }
  row("5", "python3 workers left after every pool was closed (ps: pids the pools reported, children, cwd in the workspace)", 0, "processes", 0, "llm4ad-workers-left");
  notes.push(`#5 ${seenPids.size} worker pids reported by the pools before close; none alive after`);
});

const tookS = (performance.now() - started) / 1000;

// ---------------------------------------------------------------------------------------------
// Report.

printReport({ title: "trace-bench LLM4AD bridge benchmark", rows, notes, failures, tookS, asJson });
