/**
 * `trace-bench replay <run_dir>`: deletes every file the event log can produce and rebuilds it:
 * the jsonl mirrors from SQLite, then every projection from the events.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import type { ParsedArgs, VerbSpec } from "./args.js";
import { UsageError } from "./args.js";
import { EVENTS_DB, EventStore, peekRun } from "../events/event-store.js";
import { ProjectionWriter } from "../events/projection-writer.js";
import { RunState } from "../events/run-state.js";

export const spec: VerbSpec = {
  name: "replay",
  summary: "Delete and rebuild every projection of a run directory (reports, mirrors, job files) from its event log.",
  flags: {},
  positional: { name: "run_dir", description: "A run directory (runs/<run_id>).", required: true },
};

/** Everything in a run directory but the SQLite log itself. */
function removeDerivedFiles(runDir: string): void {
  for (const entry of readdirSync(runDir)) {
    if (entry === EVENTS_DB || entry.startsWith(`${EVENTS_DB}-`)) continue;
    rmSync(join(runDir, entry), { recursive: true, force: true });
  }
}

export function replayRun(runDir: string): RunState {
  const peek = peekRun(runDir);
  if (peek === null) throw new UsageError({ verb: "replay", problem: `${runDir} has no event log (${EVENTS_DB}); pass a run directory such as runs/<run_id>` });
  removeDerivedFiles(runDir);
  const store = EventStore.open(runDir, peek.runId, { create: false });
  try {
    const state = RunState.fold(store.readAll());
    new ProjectionWriter(runDir, true).writeAll(state);
    return state;
  } finally {
    store.close();
  }
}

export async function execute(args: ParsedArgs): Promise<number> {
  const runDir = args.positional!;
  if (!existsSync(runDir)) throw new UsageError({ verb: "replay", problem: `no such run directory: ${runDir}` });
  const state = replayRun(runDir);
  process.stdout.write(`Replayed ${basename(runDir)}: ${state.lastSeq} events, ${state.orderedJobs().filter((j) => j.finished).length} jobs\n`);
  return 0;
}
