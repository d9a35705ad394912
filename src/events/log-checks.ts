/**
 * What a file must pass before trace-bench trusts it as a run's event log: it is a trace-bench
 * log at all (an empty file is what a full disk leaves, a foreign database what a wrong path
 * finds), its pages are sound (SQLite's `quick_check`, before a writer appends to a log it takes
 * over), and no stream has a hole (an event removed from the middle of a job's stream makes every
 * fold of it wrong). Each failure is an `EventLogCorruptError` that names the file and the fix;
 * none changes the file.
 */
import { statSync } from "node:fs";
import type Database from "better-sqlite3";
import { damagedLogFix, EventLogCorruptError } from "./event-log-errors.js";

/**
 * Each connection's page cache, in KiB: SQLite's own default. better-sqlite3 raises it, and a big
 * log fills the larger cache (read by the writer and the derived files' reader) while a run mostly
 * appends near the end of the log and reads it in order: the smaller cache lowers a big run's peak
 * at the same speed (docs/performance.md: ledger, 8d97583).
 */
export const LOG_PAGE_CACHE_KIB = 2000;

/** A log that has events but no RunStarted (which every run appends first) lost it. */
export const missingStartProblem = (path: string) => `the log holds events but no RunStarted: an event was removed and the log is damaged; ${damagedLogFix(path)}`;

/** Throws unless `db` (at `path`) holds an events table. */
export function requireEventLog(db: Database.Database, path: string): void {
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").get() !== undefined) return;
  const empty = statSync(path).size === 0;
  throw new EventLogCorruptError({
    path,
    problem: empty
      ? "the file is empty (0 bytes; a full disk can leave one behind), not an event log; nothing was changed: move it away, then run the command again"
      : "not a trace-bench event log (a database without an events table); nothing was changed: move it away, or pass the run directory it belongs in",
  });
}

/** Throws when SQLite finds damaged pages in `db` (its `quick_check`: every page read, indexes not compared with their tables). */
export function requireSoundPages(db: Database.Database, path: string): void {
  let verdict: string;
  try {
    verdict = (db.pragma("quick_check(1)") as { quick_check: string }[]).map((row) => row.quick_check).join("; ");
  } catch (error) {
    const code = String((error as { code?: unknown }).code ?? "");
    if (!code.startsWith("SQLITE_CORRUPT") && !code.startsWith("SQLITE_NOTADB")) throw error;
    verdict = (error as Error).message;
  }
  if (verdict === "ok") return;
  throw new EventLogCorruptError({ path, problem: `the database is damaged (SQLite's quick_check: ${verdict.replace(/\s+/g, " ").trim()}); nothing was written: ${damagedLogFix(path)}` });
}

/** Where a stream has a hole: the first position missing, and the one the log holds next. */
export interface StreamGap {
  readonly stream: string;
  readonly missing: number;
  readonly next: number;
}

/** What `gap` is: corruption. */
export const streamGapText = (gap: StreamGap) =>
  `stream ${gap.stream} has no event at position ${gap.missing} (the log holds position ${gap.next} next): an event was removed and the log is damaged`;

/** The line that says `gap` is corruption, and how to mend it. */
export const streamGapProblem = (gap: StreamGap, path: string) => `${streamGapText(gap)}; ${damagedLogFix(path)}`;

/** The first hole in `stream` (whose highest position is beyond its event count), read through the stream index. */
export function gapIn(db: Database.Database, source: string, stream: string): StreamGap {
  let expected = 1;
  for (const position of db.prepare(`SELECT position FROM ${source} WHERE stream = ? ORDER BY position`).pluck().iterate(stream) as IterableIterator<number>) {
    if (position !== expected) return { stream, missing: expected, next: position };
    expected += 1;
  }
  throw new Error(`stream ${stream} has no gap`);
}

/** The first stream with a hole (a stream's highest position is its event count when it has none), or null. */
export function firstStreamGap(db: Database.Database, source: string): StreamGap | null {
  // A schema-1 log (read through a view) has no stored positions: they are derived from seq order, without holes.
  if (source !== "events") return null;
  const stream = db.prepare(`SELECT stream FROM ${source} GROUP BY stream HAVING max(position) <> count(*) LIMIT 1`).pluck().get() as string | undefined;
  return stream === undefined ? null : gapIn(db, source, stream);
}

/** The seq the log gave out last: SQLite's AUTOINCREMENT keeps it when rows are deleted (0 for a log without one). */
export function lastGivenSeq(db: Database.Database): number {
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'").get() === undefined) return 0;
  return (db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'events'").pluck().get() as number | undefined) ?? 0;
}

/** What a log that gave out seq `given` but ends at `last` is: its last events were removed. */
export const removedTailText = (given: number, last: number) => `the log ends at seq ${last} but had recorded up to seq ${given}: its last event(s) were removed and the log is damaged`;

/** The line that says the log's last events were removed, and how to mend it. */
export const removedTailProblem = (given: number, last: number, path: string) => `${removedTailText(given, last)}; ${damagedLogFix(path)}`;

/**
 * Throws when events were removed from the log: a stream has a hole, or its last events are gone
 * (a log never deletes a row: its appends commit whole or not at all).
 */
export function requireNoRemovedEvents(db: Database.Database, source: string, path: string): void {
  const gap = firstStreamGap(db, source);
  if (gap !== null) throw new EventLogCorruptError({ path, problem: streamGapProblem(gap, path) });
  const given = lastGivenSeq(db);
  const last = (db.prepare(`SELECT COALESCE(MAX(seq), 0) FROM ${source}`).pluck().get() as number) ?? 0;
  if (given > last) throw new EventLogCorruptError({ path, problem: removedTailProblem(given, last, path) });
}
