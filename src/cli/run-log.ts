/**
 * The read-only verbs' first step: the run directory's events (and its stored texts), or a
 * one-line usage error when the path holds no run. Never takes the writer lock, so a live run
 * can be inspected.
 */
import { existsSync } from "node:fs";
import * as Data from "effect/Data";
import { UsageError } from "./args.js";
import { EventReader, peekRun, type RunPeek } from "../events/event-reader.js";
import type { StoredEvent } from "../events/event-schema.js";
import { EVENTS_DB } from "../events/log-database.js";

/** The run has no such job, step, ...: one line naming it and where to look, exit 2. */
export class RunQueryError extends Data.TaggedError("RunQueryError")<{ readonly problem: string }> {
  override get message(): string {
    return this.problem;
  }
}

export interface RunLog {
  readonly peek: RunPeek;
  readonly events: StoredEvent[];
  readonly contents: (refs: Iterable<string>) => Map<string, string>;
}

/** Reads the whole log; `contents` reads texts after the log was read (the reader stays open until `use` returns). */
export function withRunLog<T>(verb: string, runDir: string, use: (log: RunLog) => T): T {
  const peek = existsSync(runDir) ? peekRun(runDir) : null;
  if (peek === null) throw new UsageError({ verb, problem: `${runDir} has no event log (${EVENTS_DB}); pass a run directory such as runs/<run_id>` });
  const reader = EventReader.open(runDir);
  try {
    reader.requireNoRemovedEvents();
    return use({ peek, events: reader.readAfter(0), contents: (refs) => reader.contents(refs) });
  } finally {
    reader.close();
  }
}
