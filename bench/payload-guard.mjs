#!/usr/bin/env node
// Payload validation benchmark: effect's `Schema.is` against the compiled guard
// (src/events/payload-guard.ts) on every event payload of one run's event log, per event type.
//
//   node bench/payload-guard.mjs <run_dir>   measures that run's events.db
//   node bench/payload-guard.mjs             first makes a run of BENCH_JOBS trivial jobs (default
//                                            1000; stub mode) with the real CLI in a temp directory
//
// Needs `npm run build` (imports dist/). Payloads are parsed from JSON once, outside the timing.
// Two measures: (1) cold, what one open or replay pays: a single pass over the log in seq order,
// each checker in fresh processes (checkers built from EVENT_DATA first, as event-schema.ts does);
// (2) warm, per event type: a warm-up pass, then passes repeated for at least BENCH_MIN_MS
// (default 300) per type and checker. Both checkers must agree on every payload.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import * as Schema from "effect/Schema";
import { benchWorkspace } from "./workspace.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { EVENT_DATA } = await import("../dist/src/events/event-schema.js");
const { compileGuard } = await import("../dist/src/events/payload-guard.js");
const { openReadableDatabase } = await import("../dist/src/events/log-database.js");

const MIN_MS = Number(process.env.BENCH_MIN_MS || 300);
const JOBS = Number(process.env.BENCH_JOBS || 1000);

/** A fresh stub run of `jobs` trivial jobs, made by the CLI; resolves to its run directory. */
async function generatedRun(jobs) {
  const workspace = benchWorkspace("trace-bench-payload-guard-");
  const config = join(workspace.dir, "bench.yaml");
  writeFileSync(config, ["mode: stub", `seeds: [${Array.from({ length: jobs }, (_, i) => i + 1).join(", ")}]`, "tasks: [internal:numeric_param]", "trainers: [NoOpTrainer]", ""].join("\n"));
  const runsDir = join(workspace.dir, "runs");
  const args = [join(ROOT, "bin", "trace-bench.js"), "run", "--config", config, "--runs-dir", runsDir, "--run-id", "bench", "--max-workers", "8"];
  process.stderr.write(`making a run of ${jobs} trivial jobs ...\n`);
  await new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
    workspace.running(child);
    child.on("error", reject);
    child.on("close", (code) => {
      workspace.finished(child);
      if (code === 0) resolvePromise();
      else reject(new Error(`trace-bench run exited ${code}`));
    });
  });
  return join(runsDir, "bench");
}

/** Every event of the run, in seq order, its payload parsed. */
function readEvents(runDir) {
  const { db, source } = openReadableDatabase(runDir);
  try {
    return db
      .prepare(`SELECT type, data FROM ${source} ORDER BY seq`)
      .all()
      .map(({ type, data }) => ({ type, data: JSON.parse(data) }));
  } finally {
    db.close();
  }
}

const makeChecker = { is: (schema) => Schema.is(schema), guard: (schema) => compileGuard(schema) };

// Child mode: one cold pass of one checker; prints the total ms.
if (process.argv[2] === "--cold") {
  const [, , , checker, runDir] = process.argv;
  const events = readEvents(runDir);
  const start = performance.now();
  const checks = Object.fromEntries(Object.entries(EVENT_DATA).map(([type, schema]) => [type, makeChecker[checker](schema)]));
  let accepted = 0;
  for (const { type, data } of events) if (checks[type](data)) accepted += 1;
  const ms = performance.now() - start;
  if (accepted !== events.length) throw new Error(`${checker} rejected ${events.length - accepted} payloads`);
  process.stdout.write(`${JSON.stringify({ ms, events: events.length })}\n`);
  process.exit(0);
}

function coldPass(checker, runDir) {
  return new Promise((resolvePromise, reject) => {
    const out = [];
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--cold", checker, runDir], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolvePromise(JSON.parse(Buffer.concat(out).toString("utf8"))) : reject(new Error(`cold pass of ${checker} exited ${code}`))));
  });
}

const runDir = process.argv[2] ?? (await generatedRun(JOBS));
const byType = new Map();
for (const { type, data } of readEvents(runDir)) {
  if (!byType.has(type)) byType.set(type, []);
  byType.get(type).push(data);
}

/** Mean µs per payload of `check` over `payloads`, after one warm-up pass. */
function time(check, payloads) {
  for (const p of payloads) check(p);
  let passes = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < MIN_MS || passes < 3) {
    for (const p of payloads) check(p);
    passes += 1;
    elapsed = performance.now() - start;
  }
  return (elapsed * 1000) / (passes * payloads.length);
}

const fmtMs = (ms) => `${ms.toFixed(1)} ms`;
const rows = [];
let totals = { events: 0, isUs: 0, guardUs: 0 };
for (const [type, payloads] of [...byType].sort((a, b) => b[1].length - a[1].length)) {
  const schema = EVENT_DATA[type];
  if (schema === undefined) throw new Error(`unknown event type ${type}`);
  const is = Schema.is(schema);
  const guard = compileGuard(schema);
  const disagree = payloads.filter((p) => is(p) !== guard(p)).length;
  const isUs = time(is, payloads);
  const guardUs = time(guard, payloads);
  rows.push([type, payloads.length, isUs, guardUs, isUs / guardUs, disagree]);
  totals = { events: totals.events + payloads.length, isUs: totals.isUs + isUs * payloads.length, guardUs: totals.guardUs + guardUs * payloads.length };
}
rows.push(["all events (weighted)", totals.events, totals.isUs / totals.events, totals.guardUs / totals.events, totals.isUs / totals.guardUs, rows.reduce((n, r) => n + r[5], 0)]);

// The least of BENCH_COLD_RUNS fresh processes each (default 3, taken in turns): the least disturbed by other work.
const coldRuns = Math.max(1, Number(process.env.BENCH_COLD_RUNS || 3));
const cold = { is: { ms: Infinity }, guard: { ms: Infinity } };
for (let i = 0; i < coldRuns; i++) {
  for (const checker of ["is", "guard"]) {
    const pass = await coldPass(checker, runDir);
    if (pass.ms < cold[checker].ms) cold[checker] = pass;
  }
}
const coldUs = (c) => (c.ms * 1000) / c.events;
rows.unshift([
  "cold: one pass in seq order",
  cold.is.events,
  coldUs(cold.is),
  coldUs(cold.guard),
  cold.is.ms / cold.guard.ms,
  0,
]);

const header = ["payloads", "events", "Schema.is µs/event", "compiled guard µs/event", "speedup", "disagree"];
const cells = [header, ...rows.map(([t, n, a, b, x, d]) => [t, String(n), a.toFixed(3), b.toFixed(3), `${x.toFixed(1)}x`, String(d)])];
const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
process.stdout.write(`payload validation of ${runDir} (${totals.events} events; node ${process.version})\n`);
for (const row of cells) process.stdout.write(`${row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ")}\n`);
process.stdout.write(`(cold: best of ${coldRuns} fresh processes each, ${fmtMs(cold.is.ms)} vs ${fmtMs(cold.guard.ms)} for the whole log, building the checkers included)\n`);
if (rows.some((r) => r[5] > 0)) {
  process.stderr.write("the compiled guard and Schema.is disagree on some payloads\n");
  process.exitCode = 1;
}
