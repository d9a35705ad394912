#!/usr/bin/env node
// The dashboard's live latency: from an event committed by a running `trace-bench run` to the
// server-sent message that carries it reaching a client of `trace-bench ui` (the README promises
// progress and each job's state "within a second").
//
// The real CLI runs as child processes in a temp workspace: `trace-bench ui --port 0`, then a
// `trace-bench run` of its own (as from a terminal). This script follows the run's stream
// (/api/stream?run=...) as an open page does and notes when each `run` message arrives and the
// last seq it carries. Afterwards each event's commit time is its `ts` in events.db (stamped just
// before its transaction commits, so a latency is if anything over-stated) and its latency is the
// arrival of the first message covering its seq. Events committed before the stream opened are
// left out. Two workloads:
//   paced   fixture:sleep (test/fixtures/suites, loaded as a task module) x NoOpTrainer, jobs of
//           ~0.3 s, 3 workers: events trickle in, as in a run with real LLM calls
//   burst   internal:numeric_param x NoOpTrainer, trivial jobs, 8 workers: thousands of events a
//           second, every poll reads hundreds of them and sends every job's state
//
//   node bench/ui-live-latency.mjs                 prints its own table (needs `npm run build`)
//   node bench/ui-live-latency.mjs --json --dir D  works in D (made by the caller, e.g. run-all.mjs)
//                                                  and prints {rows, notes, failures} as JSON on stdout
// UI_BENCH_PACED_JOBS=60 UI_BENCH_BURST_JOBS=1000 set the workloads' sizes.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { fmt, printReport, scriptArgs } from "./report.mjs";
import { benchWorkspace } from "./workspace.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(ROOT, "bin", "trace-bench.js");
const FIXTURE_SUITE = join(ROOT, "test", "fixtures", "suites", "fixture-suite.mjs");
const PACED_JOBS = Number(process.env.UI_BENCH_PACED_JOBS ?? 60);
const BURST_JOBS = Number(process.env.UI_BENCH_BURST_JOBS ?? 1000);
/** After the run exits, how long the stream is kept open for its last messages (several polls). */
const DRAIN_MS = 2000;
const DEADLINE_MS = 300_000;

const { asJson, dir } = scriptArgs();
const workspace = dir ? null : benchWorkspace("trace-bench-ui-live-");
const workDir = dir ?? workspace.dir;
mkdirSync(workDir, { recursive: true });

const childEnv = { ...process.env, TRACE_BENCH_TASK_MODULES: FIXTURE_SUITE };
delete childEnv.TRACE_BENCH_TEST_KILL_AFTER_SEQ; // a test hook that would SIGKILL the run
delete childEnv.NODE_OPTIONS;

const children = new Set();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

function start(args) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: workDir, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  workspace?.running(child);
  let output = "";
  child.stdout.on("data", (c) => (output += c.toString("utf8")));
  child.stderr.on("data", (c) => (output += c.toString("utf8")));
  const exited = new Promise((done) =>
    child.on("exit", (code) => {
      children.delete(child);
      done(code);
    }),
  );
  return { child, exited, output: () => output };
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
/** Resolves with `value` after `ms` without keeping the process alive meanwhile. */
const after = (ms, value) => new Promise((done) => setTimeout(() => done(value), ms).unref());

async function waitFor(condition, ms, what) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(10)) if (condition()) return;
  throw new Error(`timed out waiting for ${what}`);
}

/** Follows `/api/stream?run=REL`: every `run` message's arrival time (ms since the epoch) and last_seq. */
function follow(origin, token, rel) {
  const { hostname, port } = new URL(origin);
  const messages = [];
  let buffer = "";
  const request = get({ host: hostname, port, path: `/api/stream?run=${encodeURIComponent(rel)}`, headers: { Authorization: `Bearer ${token}` } }, (response) => {
    response.setEncoding("utf8");
    response.on("data", (chunk) => {
      const arrived = Date.now();
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const text = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!text.startsWith("event: run\n")) continue;
        const data = text.slice(text.indexOf("data: ") + "data: ".length);
        messages.push({ arrived, lastSeq: JSON.parse(data).last_seq });
      }
    });
  });
  request.on("error", () => {}); // closed by us at the end
  return { messages, close: () => request.destroy() };
}

function committedEvents(runDir) {
  const db = new Database(join(runDir, "events.db"), { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT seq, ts FROM events ORDER BY seq").all().map((e) => ({ seq: e.seq, at: Date.parse(e.ts) }));
  } finally {
    db.close();
  }
}

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};

/** One run watched through one dashboard: each event's latency (ms) and how many messages carried them. */
async function measure(name, config) {
  const configPath = join(workDir, `${name}.yaml`);
  writeFileSync(configPath, config);
  const runsDir = join(workDir, `runs-${name}`);
  const ui = start(["ui", "--port", "0", "--runs-dir", runsDir]);
  try {
    await waitFor(() => /Dashboard: (\S+)/.test(ui.output()) || ui.child.exitCode !== null, 30_000, "trace-bench ui to start");
    const url = new URL(/Dashboard: (\S+)/.exec(ui.output())?.[1] ?? "http://invalid");
    const origin = url.origin;
    const token = url.searchParams.get("token");
    const run = start(["run", "--config", configPath, "--runs-dir", runsDir, "--run-id", name]);
    const runDir = join(runsDir, name);
    // The stream of a run opens once its log exists (as a page opens it from the runs list).
    await waitFor(() => existsSync(join(runDir, "events.db")) || run.child.exitCode !== null, 30_000, "the run's log");
    const stream = follow(origin, token, name);
    await waitFor(() => stream.messages.length > 0 || run.child.exitCode !== null, 30_000, "the first message");
    const code = await Promise.race([run.exited, after(DEADLINE_MS, "deadline")]);
    if (code !== 0) throw new Error(`trace-bench run ended with ${code}:\n${run.output().slice(-2000)}`);
    await sleep(DRAIN_MS);
    stream.close();
    const [first, ...later] = stream.messages;
    if (first === undefined) throw new Error("no message reached the client");
    const events = committedEvents(runDir).filter((e) => e.seq > first.lastSeq);
    const latencies = [];
    let next = 0;
    for (const event of events) {
      while (next < later.length && later[next].lastSeq < event.seq) next += 1;
      if (next === later.length) throw new Error(`event ${event.seq} never reached the client`);
      latencies.push(later[next].arrived - event.at);
    }
    if (latencies.length === 0) throw new Error("the run ended before the stream opened: make the workload larger");
    return { latencies, messages: later.length, events: events.length, skipped: first.lastSeq };
  } finally {
    ui.child.kill("SIGTERM");
    await ui.exited;
  }
}

const rows = [];
const notes = [];
let failures = 0;
const startedAt = Date.now();

const WORKLOADS = [
  [
    "paced",
    `${PACED_JOBS} jobs of ~0.3 s (fixture:sleep), 3 workers`,
    `mode: stub\nseeds: [${Array.from({ length: PACED_JOBS }, (_, i) => i + 1).join(", ")}]\nmax_workers: 3\ntasks:\n  - {id: fixture:sleep, eval_kwargs: {delay_ms: 150}}\ntrainers: [NoOpTrainer]\n`,
  ],
  [
    "burst",
    `${BURST_JOBS} trivial jobs, 8 workers`,
    `mode: stub\nseeds: [${Array.from({ length: BURST_JOBS }, (_, i) => i + 1).join(", ")}]\nmax_workers: 8\ntasks: [internal:numeric_param]\ntrainers: [NoOpTrainer]\n`,
  ],
];

for (const [i, [name, label, config]] of WORKLOADS.entries()) {
  const id = String(i + 1);
  process.stderr.write(`bench: ui live latency, ${name}: ${label} ...\n`);
  try {
    const { latencies, messages, events, skipped } = await measure(name, config);
    rows.push({ id, measurement: `${name} (${label}): commit → SSE message at a client, median`, value: percentile(latencies, 50), unit: "ms", digits: 0, target: null });
    rows.push({ id, measurement: `${name}: commit → SSE message at a client, p95`, value: percentile(latencies, 95), unit: "ms", digits: 0, target: null });
    rows.push({ id, measurement: `${name}: commit → SSE message at a client, worst of ${events} events`, value: Math.max(...latencies), unit: "ms", digits: 0, key: "ui-live-latency" });
    notes.push(`#${id} ${name}: ${events} events in ${messages} messages (the ${skipped} events before the stream opened left out); min ${fmt(Math.min(...latencies), 0)} ms`);
  } catch (error) {
    failures += 1;
    rows.push({ id, measurement: `${name} (${label}): commit → SSE message at a client`, unit: "ms", error: error instanceof Error ? error.message : String(error) });
  }
}
notes.push(`the server polls each log every 250 ms (src/ui/live-feed.ts): a latency is that wait, the read and fold, and the message's JSON`);

const tookS = (Date.now() - startedAt) / 1000;
printReport({ title: "trace-bench dashboard live latency", rows, notes, failures, tookS, asJson });
