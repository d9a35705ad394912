/**
 * A run directory whose `events.db` is gone while its mirror `events.jsonl` survives (a disk
 * that failed, a careless `rm`): the mirror is then the run's only history. No command may start
 * a fresh log there (its mirror would be rewritten from it), so every opener refuses, and
 * `trace-bench repair` rebuilds the log from the mirror.
 */
import { closeSync, existsSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { EventLogLostError } from "./event-log-errors.js";
import { eventsDbPath } from "./log-database.js";
import { RUN_MIRROR } from "./mirror-writer.js";

/** How a run's mirror begins: its first event is in the run stream (a job folder's mirror begins with a job's). */
const RUN_MIRROR_START = /^\{"seq":\d+,"v":\d+,"stream":"run"/;

/** Whether `runDir` holds a run's mirror (not a job folder's, not an empty file). */
export function holdsRunMirror(runDir: string): boolean {
  let fd: number;
  try {
    fd = openSync(join(runDir, RUN_MIRROR), "r");
  } catch {
    return false;
  }
  try {
    const head = Buffer.alloc(64);
    return RUN_MIRROR_START.test(head.toString("utf8", 0, readSync(fd, head, 0, head.length, 0)));
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

/** Whether `runDir` has lost its log: a run's mirror and no `events.db`. */
export const hasLostLog = (runDir: string): boolean => !existsSync(eventsDbPath(runDir)) && holdsRunMirror(runDir);

/** Throws `EventLogLostError` when `runDir` has lost its log. */
export function refuseLostLog(runDir: string): void {
  if (hasLostLog(runDir)) throw new EventLogLostError({ runDir });
}
