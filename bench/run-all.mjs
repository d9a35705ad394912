#!/usr/bin/env node
// Performance benchmark of trace-bench (run with `npm run bench`, which builds dist/ first).
//
// Drives the real CLI (node bin/trace-bench.js) as child processes over a 500-job trivial matrix
// (internal:numeric_param x NoOpTrainer x seeds 1..500, stub mode) in a temp directory, times
// them with performance.now(), and prints one table: measured figure, unit, target, status. The
// targets are read from docs/performance.md ("## Targets", by each row's key), not kept here.
// Misses are marked MISSED; the exit code is 0 unless the benchmark itself could not run.
//
// Row 8 comes from bench/llm4ad-bridge.mjs (the LLM4AD python3 worker pool), run as a child;
// row 10 from bench/ui-live-latency.mjs (a commit of a running run → the dashboard's SSE client),
// row 11 from bench/js-sandbox.mjs (trainable JavaScript, a fresh isolate per call), row 14 from
// bench/bullmq.mjs (--executor bullmq on its own redis-server: jobs/s, per-job overhead, LLM sweep).
//
// BENCH_TMPDIR=/dev/shm npm run bench   puts the runs on another file system (default: os.tmpdir()).
// BENCH_SIZES=100,1000,10000 npm run bench   the matrix sizes of the growth rows (#9; "" skips them).
// BENCH_SCALE=1 npm run bench   adds row 12 from bench/scale.mjs: run, runs, replay --verify, replay and a
//   re-run at 10,000 and 50,000 jobs (BENCH_SCALE_SIZES picks others); the 50,000-job run takes minutes.
// Run directories hold ~5,500 small files, so the file system matters as much as the CPU.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { fmt, tableLines, targetsLine, withTargets } from "./report.mjs";
import { fileFloorMicros } from "./file-floor.mjs";
import { benchWorkspace } from "./workspace.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(ROOT, "bin", "trace-bench.js");
const RSS_WRAPPER = join(ROOT, "bench", "with-max-rss.mjs");
const PROBE = join(ROOT, "bench", "probe.mjs");
const LLM4AD_BRIDGE = join(ROOT, "bench", "llm4ad-bridge.mjs");
const UI_LIVE_LATENCY = join(ROOT, "bench", "ui-live-latency.mjs");
const JS_SANDBOX = join(ROOT, "bench", "js-sandbox.mjs");
const SCALE = join(ROOT, "bench", "scale.mjs");
const JOBS = 500;
const STARTUP_RUNS = 11;
const GROWTH_SIZES = (process.env.BENCH_SIZES ?? "100,1000,10000")
  .split(",")
  .map((s) => s.trim())
  .filter((s) => s !== "")
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0);

// ---------------------------------------------------------------------------------------------
// Temp workspace, removed on every exit path. Children are spawned asynchronously so that a
// Ctrl-C reaches the handler below at once: it stops the running child and removes the workspace.

const workspace = benchWorkspace("trace-bench-bench-");
const tmp = workspace.dir;

/** A config of `jobs` trivial jobs (one task, one trainer, seeds 1..jobs). */
function writeConfig(jobs) {
  const path = join(tmp, `bench-${jobs}.yaml`);
  writeFileSync(
    path,
    [
      `# trace-bench performance benchmark: ${jobs} trivial jobs`,
      "mode: stub",
      `seeds: [${Array.from({ length: jobs }, (_, i) => i + 1).join(", ")}]`,
      "tasks: [internal:numeric_param]",
      "trainers: [NoOpTrainer]",
      "",
    ].join("\n"),
  );
  return path;
}
const configPath = writeConfig(JOBS);
const runsDir = join(tmp, "runs");

const childEnv = { ...process.env };
delete childEnv.TRACE_BENCH_TEST_KILL_AFTER_SEQ; // a test hook that would SIGKILL the run
delete childEnv.NODE_OPTIONS; // e.g. a debugger or profiler inherited from the shell

// ---------------------------------------------------------------------------------------------
// Helpers.

class BenchError extends Error {}

const tail = (text, n = 15) => (text ?? "").trimEnd().split("\n").slice(-n).join("\n");

/**
 * Runs `node <args>` to completion; resolves to the wall time (ms, spawn to exit) and its output.
 * Rejects on failure.
 */
function node(args, { env = childEnv, label = args.join(" ") } = {}) {
  return new Promise((resolvePromise, reject) => {
    const out = [];
    const err = [];
    let ms = NaN;
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    workspace.running(child);
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.stderr.on("data", (chunk) => err.push(chunk));
    child.on("error", (error) => reject(new BenchError(`${label}: ${error.message}`)));
    child.on("exit", () => {
      ms = performance.now() - started;
    });
    child.on("close", (code, signal) => {
      workspace.finished(child);
      const stdout = Buffer.concat(out).toString("utf8");
      const stderr = Buffer.concat(err).toString("utf8");
      if (code !== 0) reject(new BenchError(`${label}: exit ${code ?? signal}\n${tail(stderr)}\n${tail(stdout, 5)}`));
      else resolvePromise({ ms, stdout, stderr });
    });
  });
}

const cli = (args, options) => node([BIN, ...args], { label: `trace-bench ${args[0]}`, ...options });

const runArgs = (runId, maxWorkers, config = configPath) => ["run", "--config", config, "--runs-dir", runsDir, "--run-id", runId, "--max-workers", String(maxWorkers), "--job-timeout", "60"];

/** A fresh run of the matrix; checks that every job finished ok. */
async function freshRun(runId, maxWorkers, options) {
  const result = await cli(runArgs(runId, maxWorkers), options);
  const tally = /Jobs: (.*) \(/.exec(result.stdout)?.[1] ?? "?";
  if (tally !== `${JOBS} ok`) throw new BenchError(`run ${runId}: expected '${JOBS} ok', got '${tally}'`);
  return { ...result, runId, runDir: join(runsDir, runId) };
}

/** Seconds from RunStarted to the last committed JobFinished: how fast jobs run, reports aside. */
function jobPhaseSeconds(runDir) {
  const db = new Database(join(runDir, "events.db"), { readonly: true, fileMustExist: true });
  try {
    const at = (type, agg) => Date.parse(db.prepare(`SELECT ${agg}(ts) AS t FROM events WHERE type = ?`).get(type).t);
    return (at("JobFinished", "MAX") - at("RunStarted", "MAX")) / 1000;
  } finally {
    db.close();
  }
}

/** Bytes of every file under `dir`. */
function dirBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += dirBytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

function countEvents(runDir) {
  const db = new Database(join(runDir, "events.db"), { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT COUNT(*) AS n FROM events").get().n;
  } finally {
    db.close();
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// ---------------------------------------------------------------------------------------------
// Rows of the table. `key`: the row's target in docs/performance.md ("## Targets"); none: informational.

const rows = [];
const notes = [];
let failures = 0;

function row(id, measurement, value, unit, digits, key = undefined) {
  rows.push({ id, measurement, value, unit, digits, ...(key === undefined ? {} : { key }) });
}

function errorRow(id, measurement, unit, error) {
  failures += 1;
  const why = error instanceof Error ? error.message : String(error);
  rows.push({ id, measurement, unit, error: why });
  notes.push(`#${id} failed: ${why}`);
}

/** Runs one measurement; an error becomes an ERROR row instead of ending the benchmark. */
async function measure(id, measurement, unit, fn) {
  try {
    return await fn();
  } catch (error) {
    errorRow(id, measurement, unit, error);
    return undefined;
  }
}

function progress(text) {
  process.stderr.write(`bench: ${text}\n`);
}

// ---------------------------------------------------------------------------------------------
// Measurements.

const benchStarted = performance.now();
const loadBefore = loadavg()[0];

/**
 * The fastest of `TRIES` fresh runs at `maxWorkers` (each in its own run directory): on a shared
 * (virtual) machine the first run after a pause is slower than the next (docs/performance.md).
 */
const TRIES = 3;
async function bestRun(label, maxWorkers) {
  const tries = [];
  for (let i = 0; i < TRIES; i++) tries.push(await freshRun(`bench-${label}-${i + 1}`, maxWorkers));
  const best = tries.reduce((a, b) => (b.ms < a.ms ? b : a));
  return { best, tries: tries.map((t) => `${fmt(t.ms / 1000, 2)} s (${fmt(JOBS / jobPhaseSeconds(t.runDir), 0)} jobs/s)`).join(", ") };
}

// 1. 500 jobs, one worker, hard timeouts on: best of 3.
progress(`1/8 ${JOBS} jobs, max_workers 1 (best of ${TRIES}) ...`);
await measure("1", `${JOBS} trivial jobs, max_workers 1, --job-timeout 60: wall`, "s", async () => {
  const { best, tries } = await bestRun("w1", 1);
  row("1", `${JOBS} trivial jobs, max_workers 1, --job-timeout 60: wall (best of ${TRIES})`, best.ms / 1000, "s", 2);
  row("1", `${JOBS} trivial jobs, max_workers 1: throughput (whole command)`, JOBS / (best.ms / 1000), "jobs/s", 1);
  row("1", `${JOBS} trivial jobs, max_workers 1: job throughput (RunStarted → last JobFinished)`, JOBS / jobPhaseSeconds(best.runDir), "jobs/s", 1, "jobs-1-worker");
  notes.push(`#1 tries (wall, job throughput): ${tries}`);
});

// 2. Same at 8 workers: best of 3.
progress(`2/8 ${JOBS} jobs, max_workers 8 (best of ${TRIES}) ...`);
const run8 = await measure("2", `${JOBS} trivial jobs, max_workers 8, --job-timeout 60: wall`, "s", async () => {
  const { best, tries } = await bestRun("w8", 8);
  row("2", `${JOBS} trivial jobs, max_workers 8, --job-timeout 60: wall (best of ${TRIES})`, best.ms / 1000, "s", 2);
  row("2", `${JOBS} trivial jobs, max_workers 8: throughput (whole command)`, JOBS / (best.ms / 1000), "jobs/s", 1);
  row("2", `${JOBS} trivial jobs, max_workers 8: job throughput (RunStarted → last JobFinished)`, JOBS / jobPhaseSeconds(best.runDir), "jobs/s", 1, "jobs-8-workers");
  notes.push(`#2 tries (wall, job throughput): ${tries}; best run dir reused by #3-#5`);
  return best;
});

// 3. Events appended per second during run 2.
if (run8) {
  await measure("3", "events appended during run 2", "events/s", async () => {
    const events = countEvents(run8.runDir);
    row("3", `events appended during run 2 (${events} rows / ${fmt(run8.ms / 1000, 2)} s wall)`, events / (run8.ms / 1000), "events/s", 0);
  });
}

// 4. Replay of that run: CLI (headline, best of 2) and in-process replayRun (fresh process).
if (run8) {
  progress("4/8 replay (CLI x2, in-process x2) ...");
  await measure("4", "replay <run_dir>, CLI", "s", async () => {
    const times = [(await cli(["replay", run8.runDir])).ms, (await cli(["replay", run8.runDir])).ms];
    row("4", "replay <run_dir>, CLI process wall (best of 2)", Math.min(...times) / 1000, "s", 2, "replay-cli");
    notes.push(`#4 CLI replay tries: ${times.map((t) => `${fmt(t / 1000, 2)} s`).join(", ")}`);
  });
  await measure("4", "replay, in-process replayRun()", "s", async () => {
    const probe = JSON.parse((await node([PROBE, "replay", run8.runDir, "2"])).stdout);
    const times = probe.runs.map((r) => r.totalMs);
    row("4", "replay, in-process replayRun() (best of 2, modules preloaded)", Math.min(...times) / 1000, "s", 2, "replay-in-process");
    notes.push(`#4 in-process replayRun: ${times.map((t) => `${fmt(t / 1000, 2)} s`).join(", ")} (first is cold); importing the dist modules took ${fmt(probe.importMs, 0)} ms before that`);
  });
  await measure("4", "file floor", "µs", async () => {
    const perFile = fileFloorMicros(join(runsDir, "file-floor"));
    const perEvent = (perFile * 11 * JOBS) / countEvents(run8.runDir);
    row("4", "file system floor: one small file written to a temp file and renamed into a job folder (informational)", perFile, "µs", 1);
    notes.push(`#4 file floor: a job has 11 files, so the file system alone takes ${fmt(perEvent, 1)} µs per event of replay (rows 9) before any rendering`);
  });
}

// 5. Open/resume: in-process decision (cold, fresh process) and a full `run` re-invocation.
if (run8) {
  progress("5/8 open/resume ...");
  await measure("5", "open/resume to decision, in-process", "ms", async () => {
    const probe = JSON.parse((await node([PROBE, "resume", run8.runDir, "5"])).stdout);
    const [cold, ...warm] = probe.runs;
    if (cold.needWork !== 0) throw new BenchError(`resume probe: ${cold.needWork} of ${cold.jobs} jobs would run again (expected 0)`);
    row("5", `open/resume to decision, in-process, cold (${cold.events} events, ${cold.jobs} jobs)`, cold.totalMs, "ms", 1, "resume-cold");
    const phases = ["peekMs", "openMs", "decideMs"].map((k) => `${k.replace("Ms", "")} ${fmt(cold[k], 1)}`).join(" + ");
    notes.push(`#5 cold phases (ms; open = lock, read + fold; mirrors and projections are checked afterwards, in steps on the job thread): ${phases}; warm median of ${warm.length}: ${fmt(median(warm.map((r) => r.totalMs)), 1)} ms; importing event-reader/run-session/replay modules: ${fmt(probe.importMs, 0)} ms (not included)`);
  });
  await measure("5", "full `run` re-invocation, same --run-id", "s", async () => {
    const result = await cli(runArgs(run8.runId, 8));
    if (!result.stdout.includes(`${JOBS}/${JOBS} jobs done`) || !result.stdout.includes("0 run now")) {
      throw new BenchError(`re-invocation did not reuse every job:\n${tail(result.stdout, 5)}`);
    }
    row("5", "full `run` re-invocation, same --run-id (all 500 reused), CLI wall", result.ms / 1000, "s", 2);
  });
}

// 6. CLI start-up.
progress(`6/8 CLI start-up (1 warm-up + ${STARTUP_RUNS}) ...`);
await measure("6", "CLI start-up", "ms", async () => {
  await cli(["list-trainers"]); // warm the OS file cache
  const times = [];
  for (let i = 0; i < STARTUP_RUNS; i++) times.push((await cli(["list-trainers"])).ms);
  const bare = [];
  for (let i = 0; i < 5; i++) bare.push((await node(["-e", "0"])).ms);
  row("6", `CLI start-up: list-trainers, median of ${STARTUP_RUNS}`, median(times), "ms", 0, "startup");
  notes.push(`#6 list-trainers min/max: ${fmt(Math.min(...times), 0)} / ${fmt(Math.max(...times), 0)} ms; bare \`node -e 0\`: ${fmt(median(bare), 0)} ms (median of 5)`);
});

// 7. Peak RSS of a 500-job max_workers-8 run, through the in-process wrapper.
progress(`7/8 peak RSS of a ${JOBS}-job max_workers 8 run ...`);
await measure("7", "peak RSS", "MiB", async () => {
  const rssFile = join(tmp, "max-rss.txt");
  const result = await node([RSS_WRAPPER, ...runArgs("bench-w8-rss", 8)], { env: { ...childEnv, TRACE_BENCH_MAX_RSS_FILE: rssFile }, label: "with-max-rss run" });
  if (!result.stdout.includes(`Jobs: ${JOBS} ok`)) throw new BenchError(`rss run did not finish ${JOBS} ok:\n${tail(result.stdout, 5)}`);
  const kib = Number(readFileSync(rssFile, "utf8").trim());
  row("7", `peak RSS, ${JOBS} jobs, max_workers 8 (process.resourceUsage().maxRSS)`, kib / 1024, "MiB", 1, "run-peak-rss");
  notes.push(`#7 maxRSS ${kib} KiB; that run's wall: ${fmt(result.ms / 1000, 2)} s`);
});

// 8. The LLM4AD bridge (python3 worker pool): its own script, in a fresh process, in the workspace.
progress("8/8 LLM4AD bridge: python3 worker pool (bench/llm4ad-bridge.mjs) ...");
/** Runs a bench script with `--json --dir`, its rows and notes numbered `<id>.<its id>` in this table. */
async function childBench(id, script, dir, label) {
  let stdout;
  try {
    ({ stdout } = await node([script, "--json", "--dir", join(tmp, dir)], { label: dir }));
  } catch (error) {
    // Exit 1 = some of its measurements failed: their rows say which; anything else is the script's own failure.
    const json = error instanceof BenchError ? /\n(\{"rows".*\})\s*$/s.exec(error.message)?.[1] : undefined;
    if (json === undefined) throw error;
    stdout = json;
  }
  const child = JSON.parse(stdout.trim().split("\n").at(-1));
  for (const r of child.rows) {
    if (r.error !== undefined) errorRow(`${id}.${r.id}`, `${label} ${r.measurement}`, r.unit, r.error);
    // A child's row keeps its key (its target is looked up below, as this script's own) or the target it computed.
    else rows.push({ ...r, id: `${id}.${r.id}`, measurement: `${label} ${r.measurement}`, ...(r.key === undefined ? { target: r.target ?? null } : {}) });
  }
  notes.push(...child.notes.map((n) => n.replace(/^#(\d)/, `#${id}.$1`)));
}

await measure("8", "LLM4AD bridge (bench/llm4ad-bridge.mjs)", "", () => childBench("8", LLM4AD_BRIDGE, "llm4ad", "LLM4AD"));

// 9. Growth: the same trivial matrix at several sizes (BENCH_SIZES), one fresh max_workers-8 run
//    each, so that linearity shows: wall, peak RSS, events, run-dir size, replay, resume decision.
//
//    The replay target is the issue's: at most 50 µs per event, 10,000 events in at most 0.5 s. A cold
//    replay also pays a fixed part that no number of events spreads thin on a small log (the log
//    opened, the writer lock taken, every report's code run for the first time), measured on a
//    2-job run. So each size shows its replay per event two ways: averaged over its events, checked
//    on logs of the issue's scale (thousands of events); and beyond the fixed part, checked at
//    every size.
const REPLAY_TARGET_MIN_EVENTS = 5_000;

/** Cold replays of `runDir`, each in a fresh process (they vary from one process to the next on a shared machine: docs/performance.md). */
async function coldReplays(runDir) {
  const replays = [];
  for (let i = 0; i < 5; i++) replays.push(JSON.parse((await node([PROBE, "replay", runDir, "1"])).stdout).runs[0].totalMs);
  return replays;
}

progress("9 replay's fixed part: a 2-job run ...");
const fixedReplay = await measure("9", "replay's fixed part (2-job run)", "ms", async () => {
  const runId = "bench-growth-2";
  const result = await cli(runArgs(runId, 8, writeConfig(2)));
  if (!result.stdout.includes("Jobs: 2 ok")) throw new BenchError(`2-job run did not finish ok:\n${tail(result.stdout, 5)}`);
  const runDir = join(runsDir, runId);
  const replays = await coldReplays(runDir);
  const fixed = { ms: median(replays), events: countEvents(runDir) };
  row("9", `replay's fixed part: a 2-job run (${fixed.events} events), cold, median of 5 processes`, fixed.ms, "ms", 1);
  notes.push(`#9 2 jobs: cold replays ${replays.map((ms) => `${fmt(ms, 1)} ms`).join(", ")}`);
  rmSync(runDir, { recursive: true, force: true });
  return fixed;
});

for (const jobs of GROWTH_SIZES) {
  progress(`9 growth: ${jobs} jobs (run, replay, resume decision) ...`);
  const label = `${jobs} jobs`;
  await measure("9", `growth ${label}`, "", async () => {
    const config = writeConfig(jobs);
    const runId = `bench-growth-${jobs}`;
    const runDir = join(runsDir, runId);
    const rssFile = join(tmp, `max-rss-${jobs}.txt`);
    const result = await node([RSS_WRAPPER, ...runArgs(runId, 8, config)], { env: { ...childEnv, TRACE_BENCH_MAX_RSS_FILE: rssFile }, label: `growth run ${jobs}` });
    if (!result.stdout.includes(`Jobs: ${jobs} ok`)) throw new BenchError(`growth run did not finish ${jobs} ok:\n${tail(result.stdout, 5)}`);
    const kib = Number(readFileSync(rssFile, "utf8").trim());
    const events = countEvents(runDir);
    row("9", `${label}, max_workers 8: run wall (whole command)`, result.ms / 1000, "s", 2);
    row("9", `${label}: job throughput (RunStarted → last JobFinished)`, jobs / jobPhaseSeconds(runDir), "jobs/s", 1);
    row("9", `${label}: peak RSS of the run`, kib / 1024, "MiB", 1, "growth-peak-rss");
    row("9", `${label}: events in the log`, events, "events", 0);
    row("9", `${label}: run-dir size`, dirBytes(runDir) / 2 ** 20, "MiB", 1);
    const replays = await coldReplays(runDir);
    const replayMs = median(replays);
    row("9", `${label}: replay, in-process replayRun() (cold, modules preloaded; median of 5 processes)`, replayMs / 1000, "s", 2);
    const atScale = events >= REPLAY_TARGET_MIN_EVENTS;
    row("9", `${label}: replay per event${atScale ? "" : ` (no target below ${REPLAY_TARGET_MIN_EVENTS.toLocaleString("en-US")} events: the fixed part weighs)`}`, (replayMs * 1000) / events, "µs", 1, atScale ? "growth-replay-per-event" : undefined);
    if (fixedReplay !== undefined && events > fixedReplay.events) {
      row("9", `${label}: replay per event beyond the fixed part`, ((replayMs - fixedReplay.ms) * 1000) / (events - fixedReplay.events), "µs", 1, "growth-replay-beyond-fixed");
    }
    notes.push(`#9 ${label}: cold replays ${replays.map((ms) => `${fmt(ms, 1)} ms`).join(", ")}`);
    const resume = JSON.parse((await node([PROBE, "resume", runDir, "1"])).stdout).runs[0];
    if (resume.needWork !== 0) throw new BenchError(`resume probe: ${resume.needWork} of ${resume.jobs} jobs would run again (expected 0)`);
    row("9", `${label}: resume decision, in-process, cold (open + fold + checks + plan)`, resume.totalMs, "ms", 1, "growth-resume");
    notes.push(`#9 ${label}: resume phases (ms): peek ${fmt(resume.peekMs, 1)} + open ${fmt(resume.openMs, 1)} + decide ${fmt(resume.decideMs, 1)}`);
    rmSync(runDir, { recursive: true, force: true });
  });
}

// 10. The dashboard: how soon a commit of a running run reaches an open page (its own script).
progress("10 dashboard live latency (bench/ui-live-latency.mjs) ...");
await measure("10", "dashboard live latency (bench/ui-live-latency.mjs)", "ms", () => childBench("10", UI_LIVE_LATENCY, "ui-live", "dashboard"));

// 11. The JavaScript sandbox: what a fresh isolate per trainable-code call costs (its own script).
progress("11 JavaScript sandbox: an isolate per call (bench/js-sandbox.mjs) ...");
await measure("11", "JavaScript sandbox (bench/js-sandbox.mjs)", "ms", () => childBench("11", JS_SANDBOX, "js-sandbox", "JS sandbox"));

// 13. Concurrent agent calls: 100 examples against a server answering in 200 ms, at 1 and 10 at once (its own script).
progress("13 concurrent agent calls (bench/agent-calls.mjs) ...");
await measure("13", "concurrent agent calls (bench/agent-calls.mjs)", "s", () => childBench("13", join(ROOT, "bench", "agent-calls.mjs"), "agent-calls", "agent calls"));

// 14. --executor bullmq: trivial jobs/s with 1 and 2 workers, per-job overhead, an LLM-bound sweep (its own script; needs redis-server).
progress("14 --executor bullmq (bench/bullmq.mjs) ...");
await measure("14", "--executor bullmq (bench/bullmq.mjs)", "", () => childBench("14", join(ROOT, "bench", "bullmq.mjs"), "bullmq", "BullMQ"));

// 12. Scale: every command's time and peak RSS at 10,000 and 50,000 jobs (its own script; minutes, so only on request).
if (process.env.BENCH_SCALE === "1") {
  progress("12 scale: 10,000 and 50,000 jobs (bench/scale.mjs) ...");
  await measure("12", "scale (bench/scale.mjs)", "", () => childBench("12", SCALE, "scale", "scale"));
}

// ---------------------------------------------------------------------------------------------
// Report.

const cpuList = cpus();
const checked = withTargets(rows);
const out = [
  "",
  "trace-bench performance benchmark",
  `Machine: ${cpuList.length} CPUs (${availableParallelism()} available) ${cpuList[0]?.model?.trim() ?? "unknown"}, ${fmt(totalmem() / 2 ** 30, 1)} GiB RAM, ${process.platform}-${process.arch}`,
  `Load average (1 min): ${fmt(loadBefore, 2)} at start, ${fmt(loadavg()[0], 2)} at end${Math.max(loadBefore, loadavg()[0]) > cpuList.length / 2 ? " — the machine was busy with other work; figures may be inflated" : ""}`,
  `Runs in: ${tmp} (removed afterwards; BENCH_TMPDIR picks another file system)`,
  `Node: ${process.version}; workload: ${JOBS} jobs = internal:numeric_param x NoOpTrainer x seeds 1..${JOBS}, mode stub`,
  "",
  ...tableLines(checked),
  "",
  `${targetsLine(checked, failures)} Benchmark took ${fmt((performance.now() - benchStarted) / 1000, 1)} s.`,
  ...notes.map((n) => `  ${n}`),
  ...checked.filter((r) => r.targetProblem !== undefined).map((r) => `  #${r.id}: ${r.targetProblem}`),
  "",
];
process.stdout.write(out.join("\n"));

process.exitCode = failures > 0 ? 1 : 0;
