#!/usr/bin/env node
// `--executor bullmq` (issue 31): what running jobs through Redis and BullMQ costs and gains. Drives
// the real CLI as child processes: its own redis-server (Debian's) on a free loopback port, `trace-bench
// worker` processes started first (so that their start-up is not timed), and `trace-bench run
// --executor bullmq` as the coordinator; then reads the run's log (events.db).
//
//   1. trivial jobs/s: 500 jobs (internal:numeric_param x NoOpTrainer, mode stub) with 1 and with 2
//      workers of concurrency 8, job throughput from RunStarted to the last JobFinished (as bench
//      rows 1-2 measure the local executor, which runs first here too: the machine's load shows)
//   2. per-job overhead: the same jobs one at a time (1 worker of concurrency 1, against the local
//      executor at max_workers 1); a job's time is the gap between two consecutive JobFinished, and
//      the overhead the median gap through BullMQ less the local one
//   3. an LLM-bound sweep: 48 jobs whose optimizer calls a scripted OpenAI-compatible server on
//      127.0.0.1 answering in 200 ms, with 1 and with 2 workers of equal concurrency (4): the
//      wall time (RunStarted → last JobFinished) should halve; the local executor at max_workers 4 first.
//      The workers run a short sweep of their own first (untimed, as their start-up is), and the
//      sweep is long enough that what a run pays once (RunStarted → its first jobs' handouts and
//      services, about 0.4-1 s on the loaded machine, printed in a note) does not stand for the
//      scaling: with 16 jobs it was a fifth of the 1-worker wall and two fifths of the 2-worker one
//   4. the shared LLM request limiter (adapters/llm/redis-request-limiter.ts), in-process: what a
//      request pays for a free slot (one Lua script on Redis, a round trip)
//
//   node bench/bullmq.mjs                 prints its own table (needs `npm run build` and redis-server)
//   node bench/bullmq.mjs --json --dir D  one JSON line {rows, notes, failures} for run-all.mjs
//
// Targets: docs/performance.md (## Targets), keys bullmq-jobs-1-worker, bullmq-jobs-2-workers,
// bullmq-job-overhead-p50 and bullmq-llm-scaling.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { fmt, printReport, scriptArgs } from "./report.mjs";
import { benchWorkspace } from "./workspace.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(ROOT, "bin", "trace-bench.js");
const TRIVIAL_JOBS = 500;
const TRIVIAL_CONCURRENCY = 8;
const OVERHEAD_JOBS = 200;
const LLM_JOBS = 48;
const LLM_CONCURRENCY = 4;
const LLM_DELAY_MS = 200;
const LIMITER_ROUNDS = 500;
/** A run or a worker's start-up that takes longer has hung. */
const DEADLINE_MS = 300_000;

const { asJson, dir } = scriptArgs();
const workDir = dir ?? benchWorkspace("trace-bench-bullmq-").dir;
mkdirSync(workDir, { recursive: true });
const runsDir = join(workDir, "runs");

const childEnv = { ...process.env, BULLMQ_BENCH_KEY: "sk-bench-not-a-key" };
delete childEnv.TRACE_BENCH_TEST_KILL_AFTER_SEQ; // a test hook that would SIGKILL the run
delete childEnv.NODE_OPTIONS;

class BenchError extends Error {}
const tail = (text, n = 12) => (text ?? "").trimEnd().split("\n").slice(-n).join("\n");
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const progress = (text) => process.stderr.write(`bench bullmq: ${text}\n`);

// ---------------------------------------------------------------------------------------------
// Children: every one is ended on the way out, whatever happens.

const children = new Set();
function track(child) {
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}
const endAll = () => {
  for (const child of children) child.kill("SIGKILL");
};
process.on("exit", endAll);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => (endAll(), process.exit(130)));

/** Resolves once `child`'s output (stdout and stderr) matches `pattern`; rejects if it exits first or after DEADLINE_MS. */
function untilSaid(child, pattern, label) {
  return new Promise((resolvePromise, reject) => {
    let seen = "";
    const timer = setTimeout(() => done(new BenchError(`${label}: not ready within ${DEADLINE_MS / 1000} s:\n${tail(seen)}`)), DEADLINE_MS);
    const onData = (chunk) => {
      seen += chunk.toString("utf8");
      if (pattern.test(seen)) done();
    };
    const onExit = (code, signal) => done(new BenchError(`${label} exited (${code ?? signal}) before it was ready:\n${tail(seen)}`));
    function done(error) {
      clearTimeout(timer);
      child.stdout.off("data", onData);
      child.stderr.off("data", onData);
      child.off("exit", onExit);
      if (error) reject(error);
      else resolvePromise();
    }
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", onExit);
  });
}

async function freeLoopbackPort() {
  return new Promise((resolvePromise, reject) => {
    const probe = createNetServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolvePromise(port));
    });
  });
}

/** A private redis-server (no persistence) on a free loopback port. */
async function startRedis() {
  const port = await freeLoopbackPort();
  const redisDir = join(workDir, "redis");
  mkdirSync(redisDir, { recursive: true });
  const child = track(spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", redisDir], { stdio: ["ignore", "pipe", "pipe"] }));
  const failed = new Promise((_, reject) => child.once("error", (error) => reject(new BenchError(`redis-server could not start (install Debian's redis-server): ${error.message}`))));
  await Promise.race([untilSaid(child, /Ready to accept connections/, "redis-server"), failed]);
  child.stdout.resume();
  child.stderr.resume();
  return { url: `redis://127.0.0.1:${port}`, stop: () => stop(child) };
}

/** SIGTERM, then SIGKILL if it has not ended within 10 s. */
function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolvePromise) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolvePromise();
    });
    child.kill("SIGTERM");
  });
}

/** `count` workers of `concurrency`, each ready to take tickets. */
async function startWorkers(redisUrl, count, concurrency) {
  const workers = [];
  for (let i = 0; i < count; i++) {
    const child = track(spawn(process.execPath, [BIN, "worker", "--redis", redisUrl, "--concurrency", String(concurrency)], { cwd: ROOT, env: childEnv, stdio: ["ignore", "pipe", "pipe"] }));
    workers.push(child);
  }
  await Promise.all(workers.map((child, i) => untilSaid(child, /ready: taking jobs/, `worker ${i + 1}`)));
  for (const child of workers) {
    child.stdout.resume();
    child.stderr.resume();
  }
  return { stop: () => Promise.all(workers.map(stop)) };
}

/** `node bin/trace-bench.js run ...` to its end; rejects unless every job finished ok. */
function runCli(args, jobs, label) {
  return new Promise((resolvePromise, reject) => {
    const child = track(spawn(process.execPath, [BIN, "run", ...args], { cwd: ROOT, env: childEnv, stdio: ["ignore", "pipe", "pipe"] }));
    let out = "";
    let err = "";
    const started = performance.now();
    const timer = setTimeout(() => child.kill("SIGKILL"), DEADLINE_MS);
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (err += c));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const ms = performance.now() - started;
      const tally = /Jobs: (.*) \(/.exec(out)?.[1] ?? "?";
      if (code !== 0) reject(new BenchError(`${label}: exit ${code ?? signal}\n${tail(err)}\n${tail(out, 5)}`));
      else if (tally !== `${jobs} ok`) reject(new BenchError(`${label}: expected '${jobs} ok', got '${tally}'\n${tail(out, 5)}`));
      else resolvePromise({ ms });
    });
  });
}

/** The run's JobFinished times (ms) in commit order, its RunStarted and its first job event. */
function finishTimes(runDir) {
  const db = new Database(join(runDir, "events.db"), { readonly: true, fileMustExist: true });
  try {
    const started = Date.parse(db.prepare("SELECT MAX(ts) AS t FROM events WHERE type = 'RunStarted'").get().t);
    const finished = db.prepare("SELECT ts FROM events WHERE type = 'JobFinished' ORDER BY seq").all().map((r) => Date.parse(r.ts));
    const firstJobEvent = Date.parse(db.prepare("SELECT MIN(ts) AS t FROM events WHERE job_id IS NOT NULL").get().t);
    return { started, finished, firstJobEvent };
  } finally {
    db.close();
  }
}

const jobPhaseSeconds = ({ started, finished }) => (Math.max(...finished) - started) / 1000;

// ---------------------------------------------------------------------------------------------
// Configs and the scripted LLM server.

function writeConfig(name, lines) {
  const path = join(workDir, `${name}.yaml`);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

const seeds = (n) => `seeds: [${Array.from({ length: n }, (_, i) => i + 1).join(", ")}]`;
const trivialConfig = (jobs) => writeConfig(`trivial-${jobs}`, [`# ${jobs} trivial jobs`, "mode: stub", seeds(jobs), "tasks: [internal:numeric_param]", "trainers: [NoOpTrainer]"]);

/** The optimizer's answer to every call: a value for the task's one parameter, after LLM_DELAY_MS. */
const REPLY = ["<reasoning>", "scripted", "</reasoning>", "<variable>", "<name>float0</name>", "<value>", "3", "</value>", "</variable>"].join("\n");
async function startLlmServer() {
  let received = 0;
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      received += 1;
      const body = JSON.parse(text || "{}");
      setTimeout(() => {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ id: `c${received}`, object: "chat.completion", created: 0, model: String(body.model), choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: REPLY } }], usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } }));
      }, LLM_DELAY_MS);
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { baseURL: `http://127.0.0.1:${server.address().port}/v1`, received: () => received, close: () => new Promise((r) => server.close(r)) };
}

const llmConfig = (baseURL, jobs, name = "llm-sweep") =>
  writeConfig(name, [
    `# ${jobs} jobs whose optimizer calls a server answering in ${LLM_DELAY_MS} ms`,
    "mode: real",
    `llm: {model: bench-model, base_url: "${baseURL}", api_key_env: BULLMQ_BENCH_KEY, max_concurrency: 64, max_retries: 0}`,
    seeds(jobs),
    "tasks: [internal:numeric_param]",
    "trainers:",
    "  - id: PrioritySearch",
    "    params_variants: [{ps_steps: 2}]",
  ]);

// ---------------------------------------------------------------------------------------------
// Measurements.

const rows = [];
const notes = [];
let failures = 0;
let runs = 0;

async function measure(id, measurement, unit, fn) {
  try {
    return await fn();
  } catch (error) {
    failures += 1;
    rows.push({ id, measurement, unit, error: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}

/**
 * A run of `config` through BullMQ with `workers` workers of `concurrency`: its JobFinished times and
 * wall. `max_workers` caps the jobs in flight across all workers, so it is set to their capacity.
 */
async function bullmqRun(redis, config, jobs, workers, concurrency, warmUp) {
  const pool = await startWorkers(redis.url, workers, concurrency);
  try {
    if (warmUp !== undefined) {
      const warmId = `bullmq-warm-${(runs += 1)}`;
      await runCli(["--config", warmUp.config, "--runs-dir", runsDir, "--run-id", warmId, "--executor", "bullmq", "--redis", redis.url, "--max-workers", String(workers * concurrency)], warmUp.jobs, `warm-up run ${warmId}`);
      await warmUp.after?.();
    }
    const runId = `bullmq-${(runs += 1)}`;
    const { ms } = await runCli(["--config", config, "--runs-dir", runsDir, "--run-id", runId, "--executor", "bullmq", "--redis", redis.url, "--max-workers", String(workers * concurrency)], jobs, `run ${runId} (${workers} worker(s) x ${concurrency})`);
    return { ms, ...finishTimes(join(runsDir, runId)) };
  } finally {
    await pool.stop();
  }
}

/** The same config with the local executor. */
async function localRun(config, jobs, maxWorkers) {
  const runId = `local-${(runs += 1)}`;
  const { ms } = await runCli(["--config", config, "--runs-dir", runsDir, "--run-id", runId, "--max-workers", String(maxWorkers)], jobs, `run ${runId} (local, max_workers ${maxWorkers})`);
  return { ms, ...finishTimes(join(runsDir, runId)) };
}

const t0 = performance.now();
const redis = await measure("0", "redis-server", "", () => startRedis());
if (redis !== undefined) {
  const trivial = trivialConfig(TRIVIAL_JOBS);
  // 1. Trivial jobs/s with 1 and 2 workers; first the local executor on the same jobs, under the same load.
  progress(`1.0 ${TRIVIAL_JOBS} trivial jobs, local executor, max_workers ${TRIVIAL_CONCURRENCY} ...`);
  await measure("1.0", `${TRIVIAL_JOBS} trivial jobs, local executor`, "jobs/s", async () => {
    const run = await localRun(trivial, TRIVIAL_JOBS, TRIVIAL_CONCURRENCY);
    rows.push({ id: "1.0", measurement: `${TRIVIAL_JOBS} trivial jobs, local executor, max_workers ${TRIVIAL_CONCURRENCY}: job throughput (the same load, for comparison)`, value: TRIVIAL_JOBS / jobPhaseSeconds(run), unit: "jobs/s", digits: 1 });
  });
  for (const [id, workers, key] of [["1.1", 1, "bullmq-jobs-1-worker"], ["1.2", 2, "bullmq-jobs-2-workers"]]) {
    progress(`${id} ${TRIVIAL_JOBS} trivial jobs, ${workers} worker(s) of concurrency ${TRIVIAL_CONCURRENCY} ...`);
    await measure(id, `${TRIVIAL_JOBS} trivial jobs, ${workers} worker(s)`, "jobs/s", async () => {
      const run = await bullmqRun(redis, trivial, TRIVIAL_JOBS, workers, TRIVIAL_CONCURRENCY);
      rows.push({ id, measurement: `${TRIVIAL_JOBS} trivial jobs through BullMQ, ${workers} worker(s) x concurrency ${TRIVIAL_CONCURRENCY}: job throughput (RunStarted → last JobFinished)`, value: TRIVIAL_JOBS / jobPhaseSeconds(run), unit: "jobs/s", digits: 1, key });
      notes.push(`#${id} coordinator's whole command: ${fmt(run.ms / 1000, 2)} s`);
    });
  }

  // 2. Per-job overhead, one job at a time, against the local executor.
  progress(`2 per-job overhead: ${OVERHEAD_JOBS} jobs one at a time, BullMQ and local ...`);
  await measure("2", "per-job overhead p50", "ms", async () => {
    const config = trivialConfig(OVERHEAD_JOBS);
    const gaps = ({ finished }) => finished.slice(1).map((t, i) => t - finished[i]);
    const through = gaps(await bullmqRun(redis, config, OVERHEAD_JOBS, 1, 1));
    const local = gaps(await localRun(config, OVERHEAD_JOBS, 1));
    rows.push({ id: "2", measurement: `per-job overhead of BullMQ, p50: a trivial job's time one at a time (gap between JobFinished), through BullMQ less local`, value: median(through) - median(local), unit: "ms", digits: 1, key: "bullmq-job-overhead-p50" });
    rows.push({ id: "2.1", measurement: `  a job's time through BullMQ, 1 worker x concurrency 1: p50`, value: median(through), unit: "ms", digits: 1 });
    rows.push({ id: "2.2", measurement: `  a job's time, local executor, max_workers 1: p50`, value: median(local), unit: "ms", digits: 1 });
    const sorted = [...through].sort((a, b) => a - b);
    notes.push(`#2 through BullMQ: p90 ${fmt(sorted[Math.floor(sorted.length * 0.9)], 1)} ms, max ${fmt(sorted.at(-1), 1)} ms (event times are whole ms)`);
  });

  // 3. LLM-bound sweep: 1 vs 2 workers of equal concurrency.
  progress(`3 LLM-bound sweep: ${LLM_JOBS} jobs, server ${LLM_DELAY_MS} ms, 1 and 2 workers of concurrency ${LLM_CONCURRENCY} ...`);
  await measure("3", "LLM-bound sweep", "s", async () => {
    const llm = await startLlmServer();
    try {
      const config = llmConfig(llm.baseURL, LLM_JOBS);
      const local = await localRun(config, LLM_JOBS, LLM_CONCURRENCY);
      const localCalls = llm.received();
      // The workers' first run loads what a worker loads at its first LLM job (the OpenAI client,
      // the shared limiter's script): their start-up, as the workers' own is, is not timed.
      let before = 0;
      const warmUp = { config: llmConfig(llm.baseURL, 2 * LLM_CONCURRENCY, "llm-warm-up"), jobs: 2 * LLM_CONCURRENCY, after: () => void (before = llm.received()) };
      const one = await bullmqRun(redis, config, LLM_JOBS, 1, LLM_CONCURRENCY, warmUp);
      const callsPerSweep = llm.received() - before;
      const two = await bullmqRun(redis, config, LLM_JOBS, 2, LLM_CONCURRENCY, warmUp);
      const calls = [localCalls, callsPerSweep, llm.received() - before];
      if (new Set(calls).size !== 1) throw new BenchError(`the local run and the two sweeps made ${calls.join(", ")} LLM calls: not the same work`);
      notes.push(`#3 RunStarted → first job event: 1 worker ${fmt((one.firstJobEvent - one.started) / 1000, 2)} s, 2 workers ${fmt((two.firstJobEvent - two.started) / 1000, 2)} s (in the walls)`);
      const [w1, w2] = [jobPhaseSeconds(one), jobPhaseSeconds(two)];
      rows.push({ id: "3.0", measurement: `LLM-bound sweep, local executor, max_workers ${LLM_CONCURRENCY}: wall (the same load, for comparison)`, value: jobPhaseSeconds(local), unit: "s", digits: 2 });
      rows.push({ id: "3.1", measurement: `LLM-bound sweep (${LLM_JOBS} jobs, ${callsPerSweep} calls of ${LLM_DELAY_MS} ms), 1 worker x ${LLM_CONCURRENCY}: wall (RunStarted → last JobFinished)`, value: w1, unit: "s", digits: 2 });
      rows.push({ id: "3.2", measurement: `LLM-bound sweep, 2 workers x ${LLM_CONCURRENCY}: wall`, value: w2, unit: "s", digits: 2 });
      rows.push({ id: "3.3", measurement: "LLM-bound sweep: wall with 1 worker / with 2", value: w1 / w2, unit: "x", digits: 2, key: "bullmq-llm-scaling" });
      notes.push(`#3 ideal with 1 worker: ${callsPerSweep} calls x ${LLM_DELAY_MS} ms / ${LLM_CONCURRENCY} = ${fmt((callsPerSweep * LLM_DELAY_MS) / LLM_CONCURRENCY / 1000, 2)} s if the calls spread evenly over the jobs`);
    } finally {
      await llm.close();
    }
  });
  // 4. The shared LLM request limiter's own cost: what a request pays for its slot (no contention).
  progress(`4 shared request limiter: ${LIMITER_ROUNDS} acquire + release, one at a time ...`);
  await measure("4", "shared request limiter", "ms", async () => {
    const { connectRedisRequestLimiters } = await import(join(ROOT, "dist/adapters/llm/redis-request-limiter.js"));
    const limiters = await connectRedisRequestLimiters({ url: redis.url, prefix: "bench-limiter", optionsFor: () => ({ maxConcurrency: 8, requestsPerMinute: 100_000 }), onNotice: (line) => notes.push(`#4 ${line}`) });
    try {
      const limiter = limiters.forModel("bench-model");
      const times = [];
      for (let i = 0; i < LIMITER_ROUNDS; i++) {
        const t = performance.now();
        const release = await limiter.acquire();
        times.push(performance.now() - t);
        release();
      }
      rows.push({ id: "4", measurement: "shared LLM request limiter (Redis): a free slot's acquire, p50 (max_concurrency and requests_per_minute both set)", value: median(times), unit: "ms", digits: 2 });
    } finally {
      await limiters.close();
    }
  });
  await redis.stop();
}

printReport({ title: "--executor bullmq (bench/bullmq.mjs)", rows, notes, failures, tookS: (performance.now() - t0) / 1000, asJson });
