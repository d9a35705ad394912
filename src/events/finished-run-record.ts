/**
 * A finished run's record: what its last invocation planned (a digest), where each matrix job
 * ended, its closing summary, and the size and time of the files it left, saved beside the log at
 * the seq of its `RunFinished` once every report and mirror was level with the log. A re-run with
 * nothing to do is answered from it (engine/nothing-to-do.ts) instead of folding the log again.
 *
 * It is a cache in the `snapshots` table, like the writer's state (writer-state.ts): the log stays
 * the only truth. It is trusted only while the log ends where it was saved, and is written after
 * everything it vouches for, so a kill at any instant leaves either no record at the log's end or
 * one that is true.
 */
import { bootId } from "../fs/boot-id.js";
import type { EventStore } from "./event-store.js";
import { FINISHED_RUN_SNAPSHOT, fileStamps, finishedRunFacts, pagesAreSound, type FinishedRunFacts, type FinishedRunRecord } from "./finished-run-facts.js";
import { openReadableDatabase } from "./log-database.js";
import { RUN_MIRROR } from "./mirror-writer.js";
import { PROJECTIONS } from "./projection-subscriber.js";
import { RUN_FILES } from "./projections/run-files.js";

export type { FinishedRunFacts, FinishedRunRecord };
export { bootId };

/** The files a record vouches for: the run-level reports and the run's mirror. */
const VOUCHED_FILES: readonly string[] = [...Object.values(RUN_FILES), RUN_MIRROR];

/** `[size, mtimeMs]` of each vouched file, or null when one is missing. */
export function vouchedFiles(runDir: string): Record<string, readonly [number, number]> | null {
  return fileStamps(runDir, VOUCHED_FILES);
}

/**
 * Saves the record of the run `store` holds, at its last seq, if the projections are recorded
 * level with it (they are written before `RunFinished` commits; the writer records where after).
 * Returns whether it was saved. `format` names the code that wrote it (a record of other code is
 * never read as this one's).
 */
export function saveFinishedRun(store: EventStore, format: string, record: Omit<FinishedRunRecord, "files" | "boot">): boolean {
  const seq = store.lastSeq();
  if (store.subscriberPosition(PROJECTIONS) !== seq) return false;
  const files = vouchedFiles(store.runDir);
  if (files === null) return false;
  store.saveSnapshot(FINISHED_RUN_SNAPSHOT, seq, format, JSON.stringify({ ...record, files, boot: bootId() }));
  return true;
}

/**
 * Whether SQLite finds every page of `runDir`'s log sound (its `quick_check`, what a writer runs
 * before it appends): a damaged log is the full path's to refuse, with its one line.
 */
export function soundPages(runDir: string): boolean {
  let opened: ReturnType<typeof openReadableDatabase>;
  try {
    opened = openReadableDatabase(runDir);
  } catch {
    return false;
  }
  try {
    return pagesAreSound(opened.db);
  } finally {
    opened.close();
  }
}

/**
 * The record of `runDir`'s run and the log's facts it is checked against; null when there is none
 * of format `format`, or the log cannot be read so (the full path then says why).
 */
export function readFinishedRun(runDir: string, format: string): FinishedRunFacts | null {
  let opened: ReturnType<typeof openReadableDatabase>;
  try {
    opened = openReadableDatabase(runDir);
  } catch {
    return null;
  }
  const { db, source, close } = opened;
  try {
    if (source !== "events") return null;
    return finishedRunFacts(db, format);
  } catch {
    // A log this cannot read is the full path's to report.
    return null;
  } finally {
    close();
  }
}
