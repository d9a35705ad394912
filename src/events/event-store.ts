/**
 * The run's event log, for its one writer. SQLite (WAL) in `<run_dir>/events.db` is the source of
 * truth, and `append` only commits: the events of one stream, at the version the caller expects,
 * in one transaction. Everything derived (jsonl mirrors, projections, console lines) is a
 * subscriber that reads what was committed; none of it can make an append fail.
 *
 * Opening takes the run directory's writer lock; readers (`EventReader`) never need it.
 */
import { mkdirSync } from "node:fs";
import type Database from "better-sqlite3";
import { decodeEvent, EVENT_SCHEMA_VERSION, JOB_EVENT_TYPES, streamOf, type NewEvent, type StoredEvent } from "./event-schema.js";
import { InvalidAppendError, WrongExpectedVersionError, eventLogFailure } from "./event-log-errors.js";
import type { Contents } from "./content-ref.js";
import { eventsDbPath, openWritableDatabase, readContents, ROW_COLUMNS, storedPayload, type EventRow } from "./log-database.js";
import { acquireWriterLock, currentWriter, releaseWriterLock, type WriterIdentity } from "./writer-lock.js";

/** Test hook: SIGKILL this process right after the commit of this seq, before anyone is notified. */
const KILL_AFTER_COMMIT = Number(process.env.TRACE_BENCH_TEST_KILL_AFTER_SEQ ?? NaN);
/** Test hook: from this seq on, every append fails as on a full disk (nothing of it commits). */
const FULL_FROM_SEQ = Number(process.env.TRACE_BENCH_TEST_DISK_FULL_AT_SEQ ?? NaN);

function simulatedDiskFull(): Error {
  return Object.assign(new Error("database or disk is full (simulated by TRACE_BENCH_TEST_DISK_FULL_AT_SEQ)"), { code: "SQLITE_FULL" });
}

export interface OpenOptions {
  readonly now?: () => Date;
  /** What holds the lock, shown to a second writer (e.g. `trace-bench run`). */
  readonly command?: string;
}

export const decodeRow = (row: EventRow): StoredEvent => decodeEvent({ ...row, data: JSON.parse(row.data) });

export class EventStore {
  private readonly insert: Database.Statement;
  private readonly versionOf: Database.Statement;
  /**
   * Every stream's version, read once when the writer opens the log and kept up to date by its
   * appends. The writer lock keeps other processes out, and `UNIQUE(stream, position)` refuses an
   * append that lands on a taken position anyway.
   */
  private readonly versions: Map<string, number>;
  private readonly insertContent: Database.Statement;
  private readonly appendTx: (stream: string, expected: number, events: readonly NewEvent[], ts: string, contents: Contents | undefined) => EventRow[];
  private readonly path: string;

  private constructor(
    readonly runDir: string,
    readonly runId: string,
    private readonly db: Database.Database,
    private readonly writer: WriterIdentity,
    private readonly now: () => Date,
  ) {
    this.path = eventsDbPath(runDir);
    this.insert = db.prepare("INSERT INTO events (v, stream, position, type, run_id, job_id, ts, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    this.insertContent = db.prepare("INSERT OR IGNORE INTO contents (ref, text) VALUES (?, ?)");
    this.versionOf = db.prepare("SELECT COALESCE(MAX(position), 0) AS version FROM events WHERE stream = ?").pluck();
    const heads = db.prepare("SELECT stream, MAX(position) AS version FROM events GROUP BY stream").all() as { stream: string; version: number }[];
    this.versions = new Map(heads.map((h) => [h.stream, h.version]));

    this.appendTx = db.transaction((stream: string, expected: number, events: readonly NewEvent[], ts: string, contents: Contents | undefined) => {
      if (!Number.isNaN(FULL_FROM_SEQ) && this.lastSeq() + events.length >= FULL_FROM_SEQ) throw simulatedDiskFull();
      const actual = this.streamVersion(stream);
      if (actual !== expected) throw new WrongExpectedVersionError({ stream, expected, actual });
      if (contents !== undefined) for (const [ref, text] of contents) this.insertContent.run(ref, text);
      return events.map((event, i) => {
        const jobId = event.job_id ?? null;
        if (JOB_EVENT_TYPES.has(event.type) !== (jobId !== null)) {
          throw new InvalidAppendError({ problem: `${event.type} ${jobId === null ? "needs" : "must not have"} a job_id` });
        }
        if (streamOf(jobId) !== stream) throw new InvalidAppendError({ problem: `${event.type} of ${streamOf(jobId)} appended to stream ${stream}` });
        const data = JSON.stringify(event.data);
        const position = expected + i + 1;
        const info = this.insert.run(EVENT_SCHEMA_VERSION, stream, position, event.type, this.runId, jobId, ts, data);
        return { seq: Number(info.lastInsertRowid), v: EVENT_SCHEMA_VERSION, stream, position, type: event.type, run_id: this.runId, job_id: jobId, ts, data };
      });
    });
  }

  /** Creates the run directory if needed, opens (or migrates) its log and takes the writer lock. */
  static open(runDir: string, runId: string, options: OpenOptions = {}): EventStore {
    const now = options.now ?? (() => new Date());
    try {
      mkdirSync(runDir, { recursive: true });
    } catch (error) {
      throw eventLogFailure(error, runDir);
    }
    const db = openWritableDatabase(runDir);
    const writer = currentWriter();
    try {
      acquireWriterLock(db, runDir, writer, options.command ?? `trace-bench (pid ${process.pid})`, now());
      return new EventStore(runDir, runId, db, writer, now);
    } catch (error) {
      try {
        releaseWriterLock(db, writer);
      } finally {
        db.close();
      }
      throw eventLogFailure(error, eventsDbPath(runDir));
    }
  }

  /**
   * Commits `events` (all of `stream`) if the stream is at `expectedVersion`, with the texts they
   * refer to (`contents`, by ref); returns them as stored. Throws `WrongExpectedVersionError`,
   * `EventLogWriteError` or `InvalidAppendError`; nothing is committed then.
   */
  append(stream: string, expectedVersion: number, events: readonly NewEvent[], contents?: Contents): StoredEvent[] {
    if (events.length === 0) return [];
    let rows: EventRow[];
    try {
      rows = this.appendTx(stream, expectedVersion, events, this.now().toISOString(), contents);
    } catch (error) {
      this.rereadVersion(stream);
      if (String((error as { code?: unknown }).code).startsWith("SQLITE_CONSTRAINT")) {
        throw new WrongExpectedVersionError({ stream, expected: expectedVersion, actual: this.streamVersion(stream) });
      }
      throw eventLogFailure(error, this.path);
    }
    this.versions.set(stream, expectedVersion + rows.length);
    if (rows.some((r) => r.seq === KILL_AFTER_COMMIT)) process.kill(process.pid, "SIGKILL");
    return rows.map((row) => {
      const event = { ...row, data: JSON.parse(row.data) } as StoredEvent;
      storedPayload.set(event, row.data);
      return event;
    });
  }

  /** How many events `stream` holds (0 for a new stream): the version the next append expects. */
  streamVersion(stream: string): number {
    return this.versions.get(stream) ?? 0;
  }

  /** After a failed append, what the log itself holds (another writer's events, or none of ours). */
  private rereadVersion(stream: string): void {
    try {
      this.versions.set(stream, this.versionOf.get(stream) as number);
    } catch {
      // The log cannot be read either; the append's own error says why.
    }
  }

  /** Raw rows after `afterSeq`, in seq order (for mirrors, which copy the stored text). */
  rowsAfter(afterSeq: number): EventRow[] {
    return this.db.prepare(`SELECT ${ROW_COLUMNS} FROM events WHERE seq > ? ORDER BY seq`).all(afterSeq) as EventRow[];
  }

  /**
   * Every row in seq order, each decoded and handed to `visit` with its event as it is read (so
   * the whole log is never held decoded); returns the rows for the caller to keep or drop.
   */
  scan(visit: (event: StoredEvent) => void): EventRow[] {
    try {
      const rows = this.rowsAfter(0);
      for (const row of rows) visit(decodeRow(row));
      return rows;
    } catch (error) {
      throw eventLogFailure(error, this.path);
    }
  }

  /** The events of one stream, in order (a job's history when it runs again). */
  streamEvents(stream: string): StoredEvent[] {
    try {
      return (this.db.prepare(`SELECT ${ROW_COLUMNS} FROM events WHERE stream = ? ORDER BY position`).all(stream) as EventRow[]).map(decodeRow);
    } catch (error) {
      throw eventLogFailure(error, this.path);
    }
  }

  /** The stored texts among `refs`. */
  contents(refs: Iterable<string>): Map<string, string> {
    try {
      return readContents(this.db, refs);
    } catch (error) {
      throw eventLogFailure(error, this.path);
    }
  }

  /** Decoded events after `afterSeq`, in seq order. */
  readAfter(afterSeq: number): StoredEvent[] {
    try {
      return this.rowsAfter(afterSeq).map(decodeRow);
    } catch (error) {
      throw eventLogFailure(error, this.path);
    }
  }

  readAll(): StoredEvent[] {
    return this.readAfter(0);
  }

  lastSeq(): number {
    return (this.db.prepare("SELECT COALESCE(MAX(seq), 0) FROM events").pluck().get() as number) ?? 0;
  }

  /** The log position a subscriber (projections) last reflected in full, 0 if never. */
  subscriberPosition(name: string): number {
    return (this.db.prepare("SELECT position FROM subscriber_positions WHERE name = ?").pluck().get(name) as number | undefined) ?? 0;
  }

  recordSubscriberPosition(name: string, position: number): void {
    try {
      this.db.prepare("INSERT OR REPLACE INTO subscriber_positions (name, position) VALUES (?, ?)").run(name, position);
    } catch (error) {
      throw eventLogFailure(error, this.path);
    }
  }

  /** Releases the writer lock and closes the database. */
  close(): void {
    if (!this.db.open) return;
    try {
      releaseWriterLock(this.db, this.writer);
    } catch {
      // A full or read-only disk: the lock row stays, and the next writer takes it over (this pid is gone by then).
    }
    this.db.close();
  }
}
