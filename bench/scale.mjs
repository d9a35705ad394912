#!/usr/bin/env node
// Growth of time and memory with the number of jobs: the trivial matrix of run-all.mjs
// (internal:numeric_param x NoOpTrainer x seeds 1..N, mode stub, max_workers 8) at each size, and
// for each the wall time and peak RSS (bench/with-max-rss.mjs) of `run`, `runs`, `replay --verify`,
// `replay`, and of `run --run-id` again on the finished run (nothing to do), twice: after the replay
// (which wrote the log, and checked and saved again the answer to a re-run) and once more with
// nothing written since; the run dir's files.
// Targets (issue 32; the figures in docs/performance.md, "## Targets": scale-peak-rss for each
// command at every size, scale-rerun for a re-run with nothing to do); and linear growth, checked
// here as a relation: the largest size in at most (its size / the smallest's) times the smallest's time.
//
//   node bench/scale.mjs                     sizes 10000,50000 (a 50,000-job run takes minutes)
//   BENCH_SCALE_SIZES=1000,10000 node bench/scale.mjs
//   node bench/scale.mjs --json --dir D      prints {rows, notes, failures} as JSON (run-all.mjs,
//                                            with BENCH_SCALE=1)
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { printReport, scriptArgs } from "./report.mjs";
import { benchWorkspace } from "./workspace.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const RSS_WRAPPER = join(ROOT, "bench", "with-max-rss.mjs");
const SIZES = (process.env.BENCH_SCALE_SIZES ?? "10000,50000")
  .split(",")
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n > 0)
  .sort((a, b) => a - b);

const { asJson, dir: givenDir } = scriptArgs();
const workspace = givenDir === undefined ? benchWorkspace("trace-bench-scale-") : null;
const tmp = givenDir ?? workspace.dir;
mkdirSync(tmp, { recursive: true });
const runsDir = join(tmp, "runs");

const childEnv = { ...process.env };
delete childEnv.TRACE_BENCH_TEST_KILL_AFTER_SEQ;
delete childEnv.NODE_OPTIONS;

const progress = (text) => process.stderr.write(`bench scale: ${text}\n`);

/** Resident set of process `pid` in KiB (Linux's /proc), or null where it cannot be read. */
function residentKib(pid) {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"));
    return line === undefined ? null : Number(line.split(/\s+/)[1]);
  } catch {
    return null;
  }
}

/** How often the resident set is sampled, to say when the peak came (the wrapper's figure is exact; this only places it). */
const RSS_SAMPLE_MS = 250;

/**
 * `trace-bench <args>` under the RSS wrapper: wall ms (spawn to exit), peak RSS MiB, stdout, and
 * when (ms after spawn) the highest sampled resident set came (null where /proc cannot be read).
 * Rejects on a non-zero exit.
 */
function measured(args, label) {
  const rssFile = join(tmp, `rss-${process.pid}.txt`);
  return new Promise((resolvePromise, reject) => {
    const out = [];
    const err = [];
    let ms = NaN;
    const started = performance.now();
    const child = spawn(process.execPath, [RSS_WRAPPER, ...args], { cwd: ROOT, env: { ...childEnv, TRACE_BENCH_MAX_RSS_FILE: rssFile }, stdio: ["ignore", "pipe", "pipe"] });
    workspace?.running(child);
    let sampledPeak = { kib: 0, ms: null };
    const sampler = setInterval(() => {
      const kib = residentKib(child.pid);
      if (kib !== null && kib > sampledPeak.kib) sampledPeak = { kib, ms: performance.now() - started };
    }, RSS_SAMPLE_MS);
    child.stdout.on("data", (c) => out.push(c));
    child.stderr.on("data", (c) => err.push(c));
    child.on("error", (error) => reject(new Error(`${label}: ${error.message}`)));
    child.on("exit", () => {
      ms = performance.now() - started;
      clearInterval(sampler);
    });
    child.on("close", (code) => {
      workspace?.finished(child);
      const stdout = Buffer.concat(out).toString("utf8");
      if (code !== 0) return reject(new Error(`${label}: exit ${code}: ${Buffer.concat(err).toString("utf8").trim().split("\n").slice(-3).join(" / ")}`));
      const mib = Number(readFileSync(rssFile, "utf8").trim()) / 1024;
      resolvePromise({ ms, mib, stdout, peakMs: sampledPeak.ms });
    });
  });
}

function writeConfig(jobs) {
  const path = join(tmp, `scale-${jobs}.yaml`);
  const seeds = Array.from({ length: jobs }, (_, i) => i + 1).join(", ");
  writeFileSync(path, `# trace-bench scale benchmark: ${jobs} trivial jobs\nmode: stub\nseeds: [${seeds}]\ntasks: [internal:numeric_param]\ntrainers: [NoOpTrainer]\n`);
  return path;
}

/** Files and folders under `dir` (the run dir's inode count, which the file system pays for). */
function entriesUnder(dir) {
  let n = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    n += 1;
    if (entry.isDirectory()) n += entriesUnder(join(dir, entry.name));
  }
  return n;
}

const rows = [];
const notes = [];
let failures = 0;
const started = performance.now();
/** Per command: { size: seconds } for the growth rows. */
const seconds = new Map();
/** Run dirs measured, removed after the report (a big run dir takes long to remove: docs/performance.md, files per job). */
const done = [];

const COMMANDS = [
  { key: "run", label: "run (fresh)", args: (config, runId) => ["run", "--config", config, "--runs-dir", runsDir, "--run-id", runId, "--max-workers", "8", "--job-timeout", "60"] },
  { key: "runs", label: "runs", args: () => ["runs", "--runs-dir", runsDir] },
  { key: "verify", label: "replay --verify", args: (_c, runId) => ["replay", "--verify", join(runsDir, runId)] },
  { key: "replay", label: "replay", args: (_c, runId) => ["replay", join(runsDir, runId)] },
  // After the replay, which wrote the log and then checked the saved answer against it and saved it again: answered from the stats.
  { key: "rerun", label: "run --run-id again (finished run, nothing to do)", args: (config, runId) => ["run", "--config", config, "--runs-dir", runsDir, "--run-id", runId, "--max-workers", "8", "--job-timeout", "60"] },
  // Nothing written since the first: answered from the saved answer's stats alone.
  { key: "rerun2", label: "run --run-id a second time (nothing to do, nothing written since)", args: (config, runId) => ["run", "--config", config, "--runs-dir", runsDir, "--run-id", runId, "--max-workers", "8", "--job-timeout", "60"] },
];

for (const jobs of SIZES) {
  const config = writeConfig(jobs);
  const runId = `scale-${jobs}`;
  const size = jobs.toLocaleString("en-US");
  for (const command of COMMANDS) {
    progress(`${size} jobs: ${command.label} ...`);
    try {
      const { ms, mib, stdout, peakMs } = await measured(command.args(config, runId), `${command.label} (${size} jobs)`);
      if (command.key === "run" && !stdout.includes(`Jobs: ${jobs} ok`)) throw new Error(`the run did not finish ${jobs} ok`);
      if (command.key.startsWith("rerun") && !stdout.includes("0 run now")) throw new Error("the re-run ran jobs again");
      const last = command.key.startsWith("rerun") && jobs === SIZES.at(-1);
      rows.push({ id: "1", measurement: `${size} jobs: ${command.label}, wall`, value: ms / 1000, unit: "s", digits: 2, ...(last ? { key: "scale-rerun" } : {}) });
      rows.push({ id: "2", measurement: `${size} jobs: ${command.label}, peak RSS`, value: mib, unit: "MiB", digits: 1, key: "scale-peak-rss" });
      // Where the peak came (the start, the jobs, the finish), sampled every RSS_SAMPLE_MS.
      if (peakMs !== null) rows.push({ id: "2.1", measurement: `${size} jobs: ${command.label}, when the highest sampled RSS came (after spawn; the wall is row 1)`, value: peakMs / 1000, unit: "s", digits: 1, target: null });
      // Said at once: a 50,000-job size takes many minutes, and its run dir as long to remove.
      progress(`${size} jobs: ${command.label}: ${(ms / 1000).toFixed(2)} s, ${mib.toFixed(1)} MiB`);
      if (!seconds.has(command.key)) seconds.set(command.key, new Map());
      seconds.get(command.key).set(jobs, ms / 1000);
    } catch (error) {
      failures += 1;
      rows.push({ id: "1", measurement: `${size} jobs: ${command.label}`, unit: "s", error: error instanceof Error ? error.message : String(error) });
    }
  }
  try {
    rows.push({ id: "3", measurement: `${size} jobs: files and folders in the run dir`, value: entriesUnder(join(runsDir, runId)), unit: "entries", digits: 0, target: null });
  } catch (error) {
    notes.push(`#3 ${size}: ${error instanceof Error ? error.message : String(error)}`);
  }
  done.push(join(runsDir, runId));
}

// Growth: the largest size's time over the smallest's.
if (SIZES.length > 1) {
  const [small, large] = [SIZES[0], SIZES.at(-1)];
  for (const command of COMMANDS.filter((c) => !c.key.startsWith("rerun"))) {
    const times = seconds.get(command.key);
    if (times?.has(small) !== true || !times.has(large)) continue;
    // Linear growth: no more than the sizes' ratio (5x for 10,000 → 50,000).
    const limit = large / small;
    rows.push({
      id: "4",
      measurement: `${command.label}: ${large.toLocaleString("en-US")} jobs' time / ${small.toLocaleString("en-US")} jobs' (sizes ${large / small}x)`,
      value: times.get(large) / times.get(small),
      unit: "x",
      digits: 2,
      target: { op: "<=", value: limit },
    });
  }
}

notes.push(`sizes ${SIZES.join(", ")}; each command once (a run of 50,000 jobs takes minutes); on a loaded machine compare figures taken side by side only`);
printReport({ title: "trace-bench scale benchmark", rows, notes, failures, tookS: (performance.now() - started) / 1000, asJson });
for (const dir of done) rmSync(dir, { recursive: true, force: true });
