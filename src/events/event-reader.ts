/**
 * Read-only access to a run's event log: read from a position, follow new events as they are
 * committed, or peek at what a run is. Readers never take the writer lock and never change the
 * file, so the dashboard, `runs` listings and resume decisions can read a log while it is written.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type Database from "better-sqlite3";
import type { StoredEvent } from "./event-schema.js";
import { EventLogCorruptError, eventLogFailure } from "./event-log-errors.js";
import { eventsDbPath, lastPositions, openReadableDatabase, readContents, ROW_COLUMNS, type EventRow } from "./log-database.js";
import { decodeRow } from "./event-store.js";
import { lastGivenSeq, missingStartProblem, requireNoRemovedEvents } from "./log-checks.js";
import { hasLostLog, refuseLostLog } from "./lost-log.js";
import { liveWriterOf } from "./writer-lock.js";
import { activeJobCount, runListingFacts, type RunListingFacts } from "./run-listing-facts.js";
import { decodeRunStartedRow, type RowWithoutPayload } from "./run-started-row.js";

/** `ROW_COLUMNS` but the payload. */
const ROW_COLUMNS_BUT_DATA = "seq, v, stream, position, type, run_id, job_id, ts";

export class EventReader {
  private constructor(
    readonly runDir: string,
    private readonly db: Database.Database,
    private readonly source: string,
    private readonly release: () => void,
  ) {}

  /**
   * Throws `EventLogCorruptError` when the file is not a trace-bench log this version can read,
   * `EventLogLostError` when only its mirror is left.
   */
  static open(runDir: string): EventReader {
    refuseLostLog(runDir);
    const { db, source, close } = openReadableDatabase(runDir);
    return new EventReader(runDir, db, source, close);
  }

  /** Throws `EventLogCorruptError` when events were removed from the log (log-checks.ts): what reads the whole log checks this first. */
  requireNoRemovedEvents(): void {
    this.guarded(() => requireNoRemovedEvents(this.db, this.source, eventsDbPath(this.runDir)));
  }

  /** `read`'s result; a failure of SQLite under it becomes the log's one-line error (event-log-errors.ts). */
  private guarded<T>(read: () => T): T {
    try {
      return read();
    } catch (error) {
      throw eventLogFailure(error, eventsDbPath(this.runDir));
    }
  }

  rowsAfter(afterSeq: number, limit = -1): EventRow[] {
    return this.db.prepare(`SELECT ${ROW_COLUMNS} FROM ${this.source} WHERE seq > ? ORDER BY seq LIMIT ?`).all(afterSeq, limit) as EventRow[];
  }

  /**
   * The rows after `afterSeq`, in seq order, read one at a time as they are asked for (a page of
   * rows held a reopened run's every `RunStarted` at once: a big matrix is megabytes, and one is
   * added per invocation; docs/performance.md: ledger, 48564e2). The read sees the log as it was
   * at the first row. Until the iterator is done (or `return`ed), this reader cannot be closed.
   */
  rowsOneByOne(afterSeq: number): IterableIterator<EventRow> {
    return this.db.prepare(`SELECT ${ROW_COLUMNS} FROM ${this.source} WHERE seq > ? ORDER BY seq`).iterate(afterSeq) as IterableIterator<EventRow>;
  }

  /**
   * Every event in seq order, decoded one at a time and handed to `visit` with whether it is the
   * last of its stream, so that a reader of the whole log can be done with a job there; the stream
   * ends and the rows are read in one transaction, so a writer's appends meanwhile are not seen.
   * Returns how many events were read.
   */
  scanWithStreamEnds(visit: (event: StoredEvent, lastOfStream: boolean) => void): number {
    let count = 0;
    this.guarded(() => {
      this.db.exec("BEGIN");
      try {
        const ends = this.lastPositions();
        // A start's payload is left to `decodeRunStartedRow` (its matrix read an entry at a time).
        const rows = this.db.prepare(`SELECT ${ROW_COLUMNS_BUT_DATA}, CASE WHEN type = 'RunStarted' THEN NULL ELSE data END AS data FROM ${this.source} ORDER BY seq`).iterate() as IterableIterator<RowWithoutPayload>;
        for (const row of rows) {
          count += 1;
          const event = row.data === null && row.type === "RunStarted" ? decodeRunStartedRow(this.db, this.source, row, decodeRow) : decodeRow(row as EventRow);
          visit(event, ends.get(event.stream) === event.position);
        }
      } finally {
        this.db.exec("COMMIT");
      }
    });
    return count;
  }

  /** The position of each stream's last event, by stream. */
  lastPositions(): Map<string, number> {
    return lastPositions(this.db, this.source);
  }

  /** Decoded events after `afterSeq` (at most `limit`), in seq order. */
  readAfter(afterSeq: number, limit = -1): StoredEvent[] {
    return this.guarded(() => this.rowsAfter(afterSeq, limit).map(decodeRow));
  }

  /** The decoded events of one stream (`run`, `job-<id>`), in order. */
  readStream(stream: string): StoredEvent[] {
    return this.guarded(() => (this.db.prepare(`SELECT ${ROW_COLUMNS} FROM ${this.source} WHERE stream = ? ORDER BY seq`).all(stream) as EventRow[]).map(decodeRow));
  }

  /** The seq the log gave out last, which is `lastSeq()` unless events at its end were removed. */
  lastGivenSeq(): number {
    return this.guarded(() => lastGivenSeq(this.db));
  }

  /** The seq of the latest committed event (0 for an empty log): a cheap "did anything change?". */
  lastSeq(): number {
    return this.guarded(() => (this.db.prepare(`SELECT COALESCE(MAX(seq), 0) FROM ${this.source}`).pluck().get() as number) ?? 0);
  }

  /** The stored texts (prompt messages, replies) among `refs`. */
  contents(refs: Iterable<string>): Map<string, string> {
    return this.guarded(() => readContents(this.db, refs));
  }

  /**
   * Calls `onEvents` with every event after `afterSeq` now, then with new ones as they are
   * committed (polling every `intervalMs`). Returns a function that stops following.
   */
  follow(afterSeq: number, onEvents: (events: StoredEvent[]) => void, intervalMs = 200): () => void {
    let position = afterSeq;
    const poll = () => {
      const events = this.readAfter(position);
      if (events.length === 0) return;
      position = events.at(-1)!.seq;
      onEvents(events);
    };
    poll();
    const timer = setInterval(poll, intervalMs);
    return () => clearInterval(timer);
  }

  /** The log position a subscriber (projections) last reflected in full, 0 if never (or an old log). */
  subscriberPosition(name: string): number {
    return this.guarded(() => {
      if (this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'subscriber_positions'").get() === undefined) return 0;
      return (this.db.prepare("SELECT position FROM subscriber_positions WHERE name = ?").pluck().get(name) as number | undefined) ?? 0;
    });
  }

  /**
   * What `runs` lists of the run, asked of SQLite row by row (run-listing-facts.ts); undefined for
   * a schema-1 log (no stream index: the caller folds it), null when no run started in it.
   */
  listingFacts(): RunListingFacts | null | undefined {
    if (this.source !== "events") return undefined;
    return this.guarded(() => runListingFacts(this.db, eventsDbPath(this.runDir)));
  }

  /** How many jobs are being worked on now: job streams whose latest row moved the job into an active state. */
  activeJobCount(): number {
    return this.guarded(() => activeJobCount(this.db));
  }

  /** The live process writing this run now (a run in progress), or null. */
  liveWriter(): ReturnType<typeof liveWriterOf> {
    return this.guarded(() => liveWriterOf(this.db));
  }

  close(): void {
    this.release();
  }
}

export interface RunPeek {
  readonly runId: string;
  readonly configHash: string;
  /** Whether the latest invocation ended with RunFinished (not crashed, not interrupted). */
  readonly finished: boolean;
  /** When the run's first invocation started (the first RunStarted's ISO timestamp). */
  readonly firstStartedAt: string;
}

/** The opening of a RunStarted payload as `JSON.stringify` writes it (invocation-first), up to its config hash. */
const HEAD_CONFIG_HASH = /^\{"invocation":\d+,"config_hash":"([0-9a-f]{16})",/;

/**
 * A cheap look at a run's log; null when the directory holds no log or no run started in it.
 * Throws `EventLogLostError` when only the log's mirror is left.
 */
export function peekRun(runDir: string): RunPeek | null {
  if (!existsSync(eventsDbPath(runDir))) {
    refuseLostLog(runDir);
    return null;
  }
  const { db, source, close } = openReadableDatabase(runDir);
  try {
    // Run-level rows are found through the stream index, and SQLite reads the hash out of the
    // payload: a big run's log is mostly job rows, and its RunStarted (the matrix) is megabytes.
    // In stream order (the index's): by seq, SQLite sorted every start, reading each one's hash.
    const order = source === "events" ? "position" : "seq";
    const started = db
      .prepare(`SELECT seq, run_id, substr(data, 1, 100) AS head FROM ${source} WHERE stream = 'run' AND type = 'RunStarted' ORDER BY ${order} DESC LIMIT 1`)
      .get() as { seq: number; run_id: string; head: string } | undefined;
    if (started === undefined) {
      if (db.prepare(`SELECT 1 FROM ${source} LIMIT 1`).get() === undefined) return null;
      throw new EventLogCorruptError({ path: eventsDbPath(runDir), problem: missingStartProblem(eventsDbPath(runDir)) });
    }
    const last = db.prepare(`SELECT type FROM ${source} WHERE stream = 'run' ORDER BY ${order} DESC LIMIT 1`).get() as { type: string };
    const first = db.prepare(`SELECT ts FROM ${source} WHERE stream = 'run' AND type = 'RunStarted' ORDER BY ${order} LIMIT 1`).get() as { ts: string };
    // A start as the writer writes it names its hash in its first bytes; any other is parsed whole
    // (a big run's start is megabytes of JSON for SQLite to parse; docs/performance.md: ledger, f997255).
    const configHash = HEAD_CONFIG_HASH.exec(started.head)?.[1] ?? db.prepare(`SELECT json_extract(data, '$.config_hash') FROM ${source} WHERE seq = ?`).pluck().get(started.seq);
    if (typeof configHash !== "string") throw new EventLogCorruptError({ path: eventsDbPath(runDir), problem: "RunStarted has no config_hash" });
    return { runId: started.run_id, configHash, finished: last.type === "RunFinished", firstStartedAt: String(first.ts) };
  } catch (error) {
    throw eventLogFailure(error, eventsDbPath(runDir));
  } finally {
    close();
  }
}

/** Whether `dir` is a run directory: it holds an event log, or has lost it and kept its mirror. */
export const holdsRunLog = (dir: string): boolean => existsSync(eventsDbPath(dir)) || hasLostLog(dir);

/** Run directories directly under a runs root that hold an event log (or its mirror alone: read, they say how to repair it). */
export function runDirectoriesWithLogs(runsRoot: string): string[] {
  if (!existsSync(runsRoot) || !statSync(runsRoot).isDirectory()) return [];
  return readdirSync(runsRoot, { withFileTypes: true })
    .filter((d) => d.isDirectory() && holdsRunLog(join(runsRoot, d.name)))
    .map((d) => d.name);
}

/**
 * The runs under a runs root that can be read, and one warning per directory that cannot
 * (damaged or foreign log): those are skipped, never blocking the others.
 */
export function readableRuns(runsRoot: string): { runs: { name: string; peek: RunPeek }[]; warnings: string[] } {
  const runs: { name: string; peek: RunPeek }[] = [];
  const warnings: string[] = [];
  for (const name of runDirectoriesWithLogs(runsRoot)) {
    try {
      const peek = peekRun(join(runsRoot, name));
      if (peek !== null) runs.push({ name, peek });
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      warnings.push(`skipping ${join(runsRoot, name)}: ${why}`);
    }
  }
  return { runs, warnings };
}
