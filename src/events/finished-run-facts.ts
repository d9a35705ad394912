/**
 * A finished run's record (finished-run-record.ts) as a reader finds it at the log's end, and
 * whether the log and the run-level files still vouch for it: every check of a re-run with nothing
 * to do (engine/nothing-to-do.ts) but those of the plan. Kept apart from finished-run-record.ts,
 * which opens the log as every reader does and knows the reports' names, so that the CLI's main
 * thread can check a saved answer again (cli/answered-rerun.ts) without loading the renderers or
 * the event schema: it is given an open database, and takes the vouched files' names from the record.
 */
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { bootId } from "../fs/boot-id.js";
import { lastGivenSeq } from "./log-checks.js";
import { liveWriterOf } from "./writer-lock.js";

/** The record's name in the log's `snapshots` table. */
export const FINISHED_RUN_SNAPSHOT = "finished-run";
/** The projection subscriber's name in `subscriber_positions` (projection-subscriber.ts's `PROJECTIONS`; a test pins the two together). */
export const PROJECTIONS_POSITION = "projections";

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

/**
 * What of `record` a re-run's answer is made of: the plan it answers, the jobs' statuses and the
 * closing block (a digest). A saved answer (cli/answered-rerun.ts) is printed again only while the
 * record at the log's end gives the same.
 */
export function answerOfRecord(record: FinishedRunRecord): string {
  return createHash("sha256").update(JSON.stringify([record.plan, record.statuses, record.summary])).digest("hex");
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
 * The record of format `format` in `db` (a schema-2 log, open for reading) and the log's facts it
 * is checked against, read in one transaction; null when there is none at the log's end.
 */
export function finishedRunFacts(db: Database.Database, format: string): FinishedRunFacts | null {
  db.exec("BEGIN");
  try {
    const saved = db.prepare("SELECT seq, data FROM snapshots WHERE name = ? AND format = ?").get(FINISHED_RUN_SNAPSHOT, format) as { seq: number; data: string } | undefined;
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
      projectionsAt: (db.prepare("SELECT position FROM subscriber_positions WHERE name = ?").pluck().get(PROJECTIONS_POSITION) as number | undefined) ?? 0,
      lastRunEvent: (db.prepare("SELECT type FROM events WHERE stream = 'run' ORDER BY position DESC LIMIT 1").pluck().get() as string | undefined) ?? null,
      writing: liveWriterOf(db) !== null,
    };
  } finally {
    db.exec("COMMIT");
  }
}

/**
 * Why the log no longer vouches for its record (`facts`), or null when it does: the record is at
 * the end of a log that lost no event, whose last invocation finished, whose projections are level
 * with it, that no live process writes, on the boot it was saved on. The files are checked apart
 * (`filesAsRecorded`), as are the pages (`soundPages`), which cost the most.
 */
export function logRefusesRecord(facts: FinishedRunFacts): string | null {
  if (facts.lastGivenSeq !== facts.lastSeq || facts.events !== facts.lastSeq) return "events were removed from the log";
  if (facts.lastRunEvent !== "RunFinished") return "the last invocation did not finish";
  if (facts.projectionsAt !== facts.lastSeq) return "the reports are behind the log";
  if (facts.writing) return "another process is writing the run";
  if (facts.record.boot !== bootId()) return "the machine rebooted since the run finished";
  return null;
}

/** `[size, mtimeMs]` of each of `names` under `runDir`, or null when one is missing or not a file. */
export function fileStamps(runDir: string, names: Iterable<string>): Record<string, readonly [number, number]> | null {
  const files: Record<string, readonly [number, number]> = {};
  for (const name of names) {
    try {
      const stat = statSync(join(runDir, name));
      if (!stat.isFile()) return null;
      files[name] = [stat.size, stat.mtimeMs];
    } catch {
      return null;
    }
  }
  return files;
}

/** Whether `now` and `recorded` stamp the same files with the same size and time. */
export function sameStamps(now: Readonly<Record<string, readonly [number, number]>>, recorded: Readonly<Record<string, readonly [number, number]>> | undefined): boolean {
  if (typeof recorded !== "object" || recorded === null) return false;
  const names = Object.keys(now);
  if (Object.keys(recorded).length !== names.length) return false;
  return names.every((name) => {
    const a = now[name]!;
    const b = recorded[name];
    return Array.isArray(b) && a[0] === b[0] && a[1] === b[1];
  });
}

/**
 * Whether every file the record vouches for (named by the record: the build that saved it, the
 * same as this one's, knew them) is on disk as the record left it.
 */
export function filesAsRecorded(runDir: string, record: FinishedRunRecord): boolean {
  if (typeof record.files !== "object" || record.files === null || Object.keys(record.files).length === 0) return false;
  const now = fileStamps(runDir, Object.keys(record.files));
  return now !== null && sameStamps(now, record.files);
}

/** Whether SQLite finds every page of `db` sound (its `quick_check`, what a writer runs before it appends). */
export function pagesAreSound(db: Database.Database): boolean {
  try {
    return (db.pragma("quick_check(1)") as { quick_check: string }[]).every((row) => row.quick_check === "ok");
  } catch {
    return false;
  }
}
