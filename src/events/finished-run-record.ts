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
import { statSync } from "node:fs";
import { join } from "node:path";
import { bootId } from "../fs/boot-id.js";
import type { EventStore } from "./event-store.js";
import { openReadableDatabase } from "./log-database.js";
import { lastGivenSeq } from "./log-checks.js";
import { RUN_MIRROR } from "./mirror-writer.js";
import { PROJECTIONS } from "./projection-subscriber.js";
import { RUN_FILES } from "./projections/run-files.js";
import { liveWriterOf } from "./writer-lock.js";

const SNAPSHOT = "finished-run";

export interface FinishedRunRecord {
  /** `planDigest` of the invocation that finished (engine/plan-digest.ts). */
  readonly plan: string;
  /** How many matrix jobs ended in each status (`unfinished`: none). */
  readonly statuses: Readonly<Record<string, number>>;
  /** Each run-level file it left (relative path): `[size, mtimeMs]`. */
  readonly files: Readonly<Record<string, readonly [number, number]>>;
  /** The closing block's facts (cli/run-closing.ts), JSON. */
  readonly summary: unknown;
  /** The machine's boot when it was saved (`bootId`). */
  readonly boot: string;
}

export { bootId };

/** The files a record vouches for: the run-level reports and the run's mirror. */
const VOUCHED_FILES: readonly string[] = [...Object.values(RUN_FILES), RUN_MIRROR];

/** `[size, mtimeMs]` of each vouched file, or null when one is missing. */
export function vouchedFiles(runDir: string): Record<string, readonly [number, number]> | null {
  const files: Record<string, readonly [number, number]> = {};
  for (const file of VOUCHED_FILES) {
    try {
      const stat = statSync(join(runDir, file));
      if (!stat.isFile()) return null;
      files[file] = [stat.size, stat.mtimeMs];
    } catch {
      return null;
    }
  }
  return files;
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
  store.saveSnapshot(SNAPSHOT, seq, format, JSON.stringify({ ...record, files, boot: bootId() }));
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
    return (opened.db.pragma("quick_check(1)") as { quick_check: string }[]).every((row) => row.quick_check === "ok");
  } catch {
    return false;
  } finally {
    opened.close();
  }
}

/** What a reader finds of a finished run's record and of the log around it, read in one transaction. */
export interface FinishedRunFacts {
  readonly record: FinishedRunRecord;
  /** The log's last seq, and the last it gave out (more when events at its end were removed). */
  readonly lastSeq: number;
  readonly lastGivenSeq: number;
  /** How many events the log holds (fewer than `lastSeq` when one was removed). */
  readonly events: number;
  /** The seq the record was saved at. */
  readonly recordSeq: number;
  /** The position the projections were last recorded level with. */
  readonly projectionsAt: number;
  /** The type of the run stream's last event. */
  readonly lastRunEvent: string | null;
  /** Whether a live process holds the writer lock. */
  readonly writing: boolean;
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
    db.exec("BEGIN");
    try {
      const saved = db.prepare("SELECT seq, data FROM snapshots WHERE name = ? AND format = ?").get(SNAPSHOT, format) as { seq: number; data: string } | undefined;
      if (saved === undefined) return null;
      const lastSeq = (db.prepare("SELECT COALESCE(MAX(seq), 0) FROM events").pluck().get() as number) ?? 0;
      // Read only when the record is at the log's end (the count reads the whole stream index).
      if (saved.seq !== lastSeq) return null;
      const record = JSON.parse(saved.data) as FinishedRunRecord;
      return {
        record,
        lastSeq,
        lastGivenSeq: lastGivenSeq(db),
        events: db.prepare("SELECT count(*) FROM events").pluck().get() as number,
        recordSeq: saved.seq,
        projectionsAt: (db.prepare("SELECT position FROM subscriber_positions WHERE name = ?").pluck().get(PROJECTIONS) as number | undefined) ?? 0,
        lastRunEvent: (db.prepare("SELECT type FROM events WHERE stream = 'run' ORDER BY position DESC LIMIT 1").pluck().get() as string | undefined) ?? null,
        writing: liveWriterOf(db) !== null,
      };
    } finally {
      db.exec("COMMIT");
    }
  } catch {
    // A log this cannot read is the full path's to report.
    return null;
  } finally {
    close();
  }
}
