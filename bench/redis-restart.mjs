#!/usr/bin/env node
// `--executor bullmq` across a Redis restart (issue 31): how long a run takes to move again once
// Redis is back. Each trial, on loopback with the real CLI: a private redis-server, 2 `trace-bench
// worker` processes, a scripted OpenAI-compatible server answering in 200 ms, and `trace-bench run
// --executor bullmq` on 3 jobs of a few calls each (the shape of the fault test in
// test/e2e/bullmq-faults.test.ts). Once 2 LLM calls are committed, Redis is stopped (SIGTERM) and
// started again on the same port; the trial then reads the run's log (events.db) for:
//   - first commit: Redis ready again → the first event committed after it (the run moves again);
//   - next job finished: Redis ready again → the first JobFinished committed after it;
//   - longest standstill: the longest gap between two commits (or the restart and the next commit)
//     from the restart on: the time lost, whatever the jobs' own pace;
//   - the run's end (every job ok, nothing recorded twice), or "hung" after the trial's deadline.
//
//   node bench/redis-restart.mjs [--trials N] [--persist] [--keep]
//     --persist  Redis keeps its data across the restart (appendonly, fsync always); default: it
//                comes back empty (no persistence, as the tests' Redis): queue and streams gone
//     --keep     keep the workspace (the processes' output, per trial) and print where it is
//   DEBUG=ioredis:* is passed on to the processes (their output is in the workspace with --keep).
//
// Not a target row: the figures go in docs/performance.md's ledger.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(ROOT, "bin", "trace-bench.js");
const argv = process.argv.slice(2);
const TRIALS = argv.includes("--trials") ? Number(argv[argv.indexOf("--trials") + 1]) : 10;
const PERSIST = argv.includes("--persist");
const KEEP = argv.includes("--keep");
/** A trial whose run has not ended by then has hung. */
const TRIAL_DEADLINE_MS = 180_000;
const LLM_DELAY_MS = 200;

const workDir = mkdtempSync(join(process.env.BENCH_TMPDIR || tmpdir(), "trace-bench-redis-restart-"));
const childEnv = { ...process.env, RESTART_BENCH_KEY: "sk-bench-not-a-key" };
delete childEnv.NODE_OPTIONS;
delete childEnv.TRACE_BENCH_TEST_KILL_AFTER_SEQ;

const children = new Set();
const track = (child) => {
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
};
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const say = (text) => process.stderr.write(`redis-restart: ${text}\n`);

/** Output of a child, kept in memory and (for --keep) in a file. */
function capture(child, file) {
  let text = "";
  const add = (c) => (text += c.toString("utf8"));
  child.stdout.on("data", add);
  child.stderr.on("data", add);
  child.once("exit", () => writeFileSync(file, text));
  return () => text;
}

async function until(condition, ms, every = 50) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(every)) if (condition()) return true;
  return condition();
}

async function freePort() {
  return new Promise((res, rej) => {
    const probe = createNetServer();
    probe.once("error", rej);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => res(port));
    });
  });
}

async function launchRedis(port, dir, file) {
  const persistence = PERSIST ? ["--appendonly", "yes", "--appendfsync", "always", "--save", ""] : ["--save", "", "--appendonly", "no"];
  const child = track(spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", ...persistence, "--dir", dir], { stdio: ["ignore", "pipe", "pipe"] }));
  const out = capture(child, file);
  if (!(await until(() => out().includes("Ready to accept connections") || child.exitCode !== null, 30_000, 10)) || child.exitCode !== null) throw new Error(`redis-server did not start: ${out()}`);
  return child;
}

const stopChild = (child) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => (child.once("exit", r), child.kill("SIGTERM")));

const REPLY = ["<reasoning>", "scripted", "</reasoning>", "<variable>", "<name>float0</name>", "<value>", "2.5", "</value>", "</variable>"].join("\n");
async function startLlmServer() {
  let n = 0;
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      n += 1;
      const body = JSON.parse(text || "{}");
      setTimeout(() => {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ id: `c${n}`, object: "chat.completion", created: 0, model: String(body.model), choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: REPLY } }], usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } }));
      }, LLM_DELAY_MS);
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { baseURL: `http://127.0.0.1:${server.address().port}/v1`, close: () => new Promise((r) => server.close(r)) };
}

function readLog(runDir) {
  try {
    const db = new Database(join(runDir, "events.db"), { readonly: true, fileMustExist: true });
    try {
      return db.prepare("SELECT seq, type, job_id, ts, data FROM events ORDER BY seq").all();
    } finally {
      db.close();
    }
  } catch {
    return [];
  }
}

async function trial(i, llm) {
  const dir = join(workDir, `trial-${i}`);
  const redisDir = join(dir, "redis");
  mkdirSync(redisDir, { recursive: true });
  const config = join(dir, "config.yaml");
  writeFileSync(config, `mode: real\nllm: {model: test-model, base_url: "${llm.baseURL}", api_key_env: RESTART_BENCH_KEY}\nseeds: [1, 2, 3]\nmax_workers: 4\ntasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 4, ps_batches: 1}]\n`);
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let redis = await launchRedis(port, redisDir, join(dir, "redis-1.log"));
  const workers = [1, 2].map((w) => {
    const child = track(spawn(process.execPath, [BIN, "worker", "--redis", url], { cwd: ROOT, env: childEnv, stdio: ["ignore", "pipe", "pipe"] }));
    return { child, said: capture(child, join(dir, `worker-${w}.log`)) };
  });
  try {
    if (!(await until(() => workers.every((w) => w.said().includes("ready: taking jobs")), 60_000))) throw new Error("workers did not start");
    const runs = join(dir, "runs");
    const coordinator = track(spawn(process.execPath, [BIN, "run", "--config", config, "--runs-dir", runs, "--run-id", "restart", "--executor", "bullmq", "--redis", url], { cwd: ROOT, env: childEnv, stdio: ["ignore", "pipe", "pipe"] }));
    const said = capture(coordinator, join(dir, "coordinator.log"));
    const exited = new Promise((r) => coordinator.once("exit", (code) => r(code)));
    const runDir = join(runs, "restart");
    if (!(await until(() => readLog(runDir).filter((e) => e.type === "LlmCallCompleted").length >= 2 || coordinator.exitCode !== null, 120_000, 50))) throw new Error(`no LLM call committed: ${said()}`);
    const down = Date.now();
    await stopChild(redis);
    redis = await launchRedis(port, redisDir, join(dir, "redis-2.log"));
    const up = Date.now();
    let code = null;
    const ended = await Promise.race([exited.then((c) => ((code = c), true)), sleep(TRIAL_DEADLINE_MS).then(() => false)]);
    const log = readLog(runDir);
    const after = log.filter((e) => Date.parse(e.ts) >= up);
    const firstCommit = after[0] ? Date.parse(after[0].ts) - up : null;
    const finished = after.find((e) => e.type === "JobFinished");
    const nextFinished = finished ? Date.parse(finished.ts) - up : null;
    // The run's longest standstill from the restart on: what recovery cost beyond the jobs' own pace.
    const times = log.filter((e) => Date.parse(e.ts) >= down).map((e) => Date.parse(e.ts));
    const stall = times.length > 1 ? Math.max(...times.slice(1).map((t, k) => t - times[k]), times[0] - down) : null;
    const finishedAll = log.filter((e) => e.type === "JobFinished").map((e) => `${e.job_id}#${JSON.parse(e.data).attempt}`);
    const once = new Set(finishedAll).size === finishedAll.length;
    const statuses = log.filter((e) => e.type === "JobFinished").map((e) => JSON.parse(e.data).status);
    if (!ended) coordinator.kill("SIGKILL");
    return { downMs: up - down, stall, firstCommit, nextFinished, ended, code, once, statuses, hint: ended ? "" : said().trim().split("\n").slice(-3).join(" | ") };
  } finally {
    for (const w of workers) await stopChild(w.child);
    await stopChild(redis);
  }
}

const llm = await startLlmServer();
const results = [];
say(`${TRIALS} trials, Redis ${PERSIST ? "with persistence (appendonly)" : "without persistence (comes back empty)"}; workspace ${workDir}`);
for (let i = 1; i <= TRIALS; i++) {
  try {
    const r = await trial(i, llm);
    results.push(r);
    const s = (ms) => (ms === null ? "none" : `${(ms / 1000).toFixed(2)} s`);
    console.log(`trial ${String(i).padStart(2)}: longest standstill ${s(r.stall)}, first commit after Redis back ${s(r.firstCommit)}, next job finished ${s(r.nextFinished)}, run ${r.ended ? `exit ${r.code}` : `HUNG (>${TRIAL_DEADLINE_MS / 1000} s)`}, statuses ${r.statuses.join(",")}${r.once ? "" : " RECORDED TWICE"}${r.hint ? ` | ${r.hint}` : ""}`);
  } catch (error) {
    console.log(`trial ${String(i).padStart(2)}: failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
await llm.close();
const nexts = results.map((r) => r.nextFinished).filter((x) => x !== null).sort((a, b) => a - b);
const stalls = results.map((r) => r.stall).filter((x) => x !== null).sort((a, b) => a - b);
const firsts = results.map((r) => r.firstCommit).filter((x) => x !== null).sort((a, b) => a - b);
const range = (xs) => (xs.length ? `${(xs[0] / 1000).toFixed(2)}–${(xs.at(-1) / 1000).toFixed(2)} s (median ${(xs[Math.floor(xs.length / 2)] / 1000).toFixed(2)})` : "n/a");
console.log(`longest standstill: ${range(stalls)}; first commit after Redis back: ${range(firsts)}; next job finished: ${range(nexts)}; hung: ${results.filter((r) => !r.ended).length}/${results.length}; not ok: ${results.filter((r) => r.ended && r.code !== 0).length}`);
if (KEEP) say(`kept ${workDir}`);
else (await import("node:fs")).rmSync(workDir, { recursive: true, force: true });
