/**
 * `trace-bench replay <run_dir>`: rebuilds every file the event log can produce: the jsonl
 * mirrors from SQLite and every projection from the events, each compared byte for byte with the
 * file there and replaced when it differs; whatever else the directory holds it lists and leaves
 * alone, or with `--prune` moves aside to `.replay-strays/<timestamp>/` (never deletes). It
 * is a writer (it takes the run directory's lock); each event is checked as it is read, before
 * anything derived from it is written. Once done, it checks the run's saved answers to a re-run
 * with nothing to do against the log it rewrote, and saves them again (cli/answered-rerun.ts).
 *
 * `--verify` only reads: it re-derives every job stream through the job machine and lists what
 * the machine would not have produced (exit 1), writing nothing.
 */
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import type { ParsedArgs, VerbSpec } from "./args.js";
import { UsageError } from "./args.js";
import { refreshSavedAnswers } from "./answered-rerun.js";
import { RunDirError } from "../engine/run-dir-error.js";
import { EventReader, peekRun } from "../events/event-reader.js";
import { EventStore } from "../events/event-store.js";
import { replayLog, type ReplayOutcome } from "../events/replay-run.js";
import { removedTailText } from "../events/log-checks.js";
import { EVENTS_DB } from "../events/log-database.js";
import { RunState } from "../events/run-state.js";
import { shellWord } from "../codec/shell-word.js";
import { cliCommand } from "../fs/cli-command.js";
import { STRAYS_DIR } from "../events/run-dir-strays.js";
import { boundHeapGrowthTightly } from "../runtime/v8-tuning.js";

export const spec: VerbSpec = {
  name: "replay",
  summary: "Rebuild every projection of a run directory (reports, mirrors, job files) from its event log; list what else it holds (kept, or moved aside with --prune).",
  flags: {
    prune: { type: "boolean", description: `Move the files and folders the log does not produce (notes, plots, a stray job folder) to <run_dir>/${STRAYS_DIR}/<timestamp>/ instead of leaving them in place. Nothing is deleted.` },
    verify: { type: "boolean", description: "Only check the log: re-derive every job's events through the job machine and list what it would not have produced (exit 1). Writes nothing." },
  },
  positional: { name: "run_dir", description: "A run directory (runs/<run_id>).", required: true },
};

const noLog = (runDir: string) => new UsageError({ verb: "replay", problem: `${runDir} has no event log (${EVENTS_DB}); pass a run directory such as runs/<run_id>` });

function requireRun(runDir: string): void {
  if (!existsSync(runDir) || peekRun(runDir) === null) throw noLog(runDir);
}

/** `replayLog` on the run at `runDir` (see events/replay-run.ts); a directory without a log is the user's error. */
export async function replayRun(runDir: string, prune = false): Promise<ReplayOutcome> {
  const store = existsSync(runDir) ? EventStore.openExisting(runDir, { command: "trace-bench replay" }) : null;
  if (store === null) throw noLog(runDir);
  return replayLog(store, runDir, prune);
}

/**
 * A file replay could not write (a system error: disk full, permissions, a file where a folder
 * goes) as a user's error: one line, exit 2. The log is intact and the projections still marked
 * behind, so the same command mends them once the cause is fixed.
 */
function fileWriteFailure(error: unknown, runDir: string): unknown {
  const code = (error as { code?: unknown; _tag?: unknown } | null)?.code;
  // System errors only (ENOSPC, EACCES, ENOTDIR, ...): Node's own `ERR_*` codes are bugs, not the user's to fix.
  if (typeof code !== "string" || !/^E[A-Z0-9]+$/.test(code) || (error as { _tag?: unknown })._tag !== undefined) return error;
  return new RunDirError({ problem: `replay could not write the run's files: ${(error as Error).message}; the event log is intact: fix this and run '${cliCommand(`replay ${shellWord(runDir)}`)}' again` });
}

/** Strays named in the line, at most (a big run may hold one in every job's folder). */
const STRAYS_NAMED = 10;

/** What replay did with what the log does not produce: kept (and how to move it aside) or moved (and where). */
export function straysLine(runDir: string, strays: readonly string[], movedTo: string | null): string {
  const named = strays.slice(0, STRAYS_NAMED).join(", ") + (strays.length > STRAYS_NAMED ? `, and ${strays.length - STRAYS_NAMED} more` : "");
  const what = `${strays.length} ${strays.length === 1 ? "entry" : "entries"} the event log does not produce`;
  if (movedTo !== null) return `Moved ${what} to ${join(runDir, movedTo)}/: ${named}`;
  return `Kept ${what} (left as they are): ${named}; '${cliCommand(`replay --prune ${shellWord(runDir)}`)}' moves them to ${join(runDir, STRAYS_DIR)}/<timestamp>/`;
}

async function verifyRun(runDir: string): Promise<number> {
  // The job machine (and XState) is loaded only to verify: a plain replay never steps it.
  const { LogVerifier } = await import("../engine/verify-log.js");
  requireRun(runDir);
  const reader = EventReader.open(runDir);
  try {
    // Read once, in seq order: each job is checked, and its details dropped, at its last event.
    const verifier = new LogVerifier();
    // Every event must also fold into the reports (a log with problems may not: they are what it says).
    const state = new RunState();
    let foldFailure: { error: unknown } | null = null;
    let last = 0;
    const events = reader.scanWithStreamEnds((event, lastOfStream) => {
      last = event.seq;
      verifier.add(event, lastOfStream);
      if (foldFailure !== null) return;
      try {
        state.apply(event);
        if (lastOfStream && event.job_id !== null) state.forgetJob(event.job_id);
      } catch (error) {
        foldFailure = { error };
      }
    });
    const problems = verifier.finish();
    const given = reader.lastGivenSeq();
    if (given > last) problems.push({ seq: given, jobId: null, problem: removedTailText(given, last) });
    if (problems.length === 0 && foldFailure !== null) throw (foldFailure as { error: unknown }).error;
    for (const p of problems) process.stdout.write(`event ${p.seq}${p.jobId ? ` (job ${p.jobId})` : ""}: ${p.problem}\n`);
    process.stdout.write(problems.length === 0 ? `Verified ${basename(runDir)}: ${events} events, ${verifier.jobsChecked} jobs, all as the job machine decides\n` : `${problems.length} problem(s) in ${basename(runDir)}\n`);
    return problems.length === 0 ? 0 : 1;
  } finally {
    reader.close();
  }
}

export async function execute(args: ParsedArgs): Promise<number> {
  const runDir = args.positional!;
  if (args.flags.verify === true) return verifyRun(runDir);
  boundHeapGrowthTightly();
  let outcome: ReplayOutcome;
  try {
    outcome = await replayRun(runDir, args.flags.prune === true);
  } catch (error) {
    throw fileWriteFailure(error, runDir);
  }
  // The log was rewritten: the saved answers to a re-run with nothing to do are checked once here,
  // so that the next re-run is answered from the stats (cli/answered-rerun.ts).
  await refreshSavedAnswers(runDir);
  const { state, strays, movedTo } = outcome;
  process.stdout.write(`Replayed ${basename(runDir)}: ${state.lastSeq} events, ${state.orderedJobs().filter((j) => j.finished).length} jobs\n`);
  if (strays.length > 0) process.stdout.write(`${straysLine(runDir, strays, movedTo)}\n`);
  return 0;
}
