#!/usr/bin/env node
// In-process timings of one run directory, each in a fresh process so that the first
// measurement is cold (nothing JIT-compiled yet). Prints one JSON object on stdout.
//
//   node bench/probe.mjs resume <run_dir> [repeats]   peekRun + RunSession.open (lock, read + fold; the
//                                                     mirrors and projections are checked afterwards, in steps)
//                                                     + statusOf per job + close
//   node bench/probe.mjs replay <run_dir> [repeats]   replayRun(run_dir), the function behind `replay`
//
// Needs `npm run build` (imports dist/).
import { performance } from "node:perf_hooks";

const [what, runDir, repeatsArg] = process.argv.slice(2);
const repeats = Math.max(1, Number(repeatsArg ?? 1));
if (!runDir || !["resume", "replay"].includes(what)) {
  process.stderr.write("usage: node bench/probe.mjs resume|replay <run_dir> [repeats]\n");
  process.exit(2);
}

const t0 = performance.now();
const { peekRun } = await import("../dist/src/events/event-reader.js");
const { RunSession } = await import("../dist/src/engine/run-session.js");
const { replayRun } = await import("../dist/src/cli/replay.js");
const importMs = performance.now() - t0;

/** From nothing (modules loaded) to "resume decision made", split into its phases. */
async function resumeOnce() {
  const a = performance.now();
  const peek = peekRun(runDir);
  if (peek === null) throw new Error(`${runDir} has no event log`);
  const p = performance.now();
  const session = RunSession.open(runDir, peek.runId, { command: "bench probe", report: (text) => process.stderr.write(`${text}\n`) });
  const d = performance.now();
  const state = session.state;
  let needWork = 0;
  let jobs = 0;
  try {
    const ids = state.started === null ? [...state.jobs.keys()] : state.started.matrix.map((spec) => spec.job_id);
    for (const id of ids) {
      const status = state.statusOf(id);
      // resume "auto": unfinished and failed jobs run again; ok/skipped are reused.
      if (status === null || !["ok", "skipped"].includes(status)) needWork += 1;
    }
    jobs = ids.length;
  } finally {
    await session.close();
  }
  const e = performance.now();
  return { totalMs: e - a, peekMs: p - a, openMs: d - p, decideMs: e - d, events: state.lastSeq, jobs, needWork };
}

async function replayOnce() {
  const a = performance.now();
  const { state } = await replayRun(runDir);
  return { totalMs: performance.now() - a, events: state.lastSeq, jobs: state.orderedJobs().length };
}

const runs = [];
for (let i = 0; i < repeats; i++) runs.push(what === "resume" ? await resumeOnce() : await replayOnce());
process.stdout.write(`${JSON.stringify({ what, importMs, runs })}\n`);
