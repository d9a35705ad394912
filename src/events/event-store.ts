/**
 * The run's event log, for its one writer. SQLite (WAL) in `<run_dir>/events.db` is the source of
 * truth, and `append` only records: the events of one stream, at the version the caller expects,
 * all or nothing. Everything derived (jsonl mirrors, projections, console lines) is a subscriber
 * that reads what was committed; none of it can make an append fail.
 *
 * Group commit (`groupCommit`, what a run uses): appends join an open group, written in one
 * transaction at the end of the event loop's turn, so a job's five appends and its neighbours'
 * cost one commit instead of five each (seqs and versions are given out as the appends come).
 * What must be on disk before the world sees it commits at once: run events and LLM calls (a
 * request is recorded before it is sent, its reply as soon as it came).
 * A kill can lose at most the last turn's other events: computation that is simply redone. Only
 * committed events reach `onCommit` (the run state, the console, the files): nothing is shown or
 * counted before it is durable. A commit that fails loses its group and every later append
 * fails with the same error; the log keeps only what committed.
 *
 * Opening takes the run directory's writer lock; readers (`EventReader`) never need it.
 */
import { makeDirectory } from "../fs/make-directory.js";
import type Database from "better-sqlite3";
import { decodeEvent, EventDecodeError, EVENT_SCHEMA_VERSION, JOB_EVENT_TYPES, RUN_STREAM, streamOf, type EventType, type NewEvent, type StoredEvent } from "./event-schema.js";
import { EventLogCorruptError, InvalidAppendError, WrongExpectedVersionError, eventLogFailure } from "./event-log-errors.js";
import { gapIn, lastGivenSeq, missingStartProblem, removedTailProblem, streamGapProblem } from "./log-checks.js";
import { refuseLostLog } from "./lost-log.js";
import type { Contents } from "./content-ref.js";
import { eventsDbPath, isPlainLine, lastPositions, LinePieces, MIRROR_LINE_COLUMNS_BUT_STARTS, MIRROR_LINE_END, mirrorLine, mirrorLineHead, type MirrorLineRow, openExistingWritableDatabase, openWritableDatabase, readContents, RecordedEvent, ROW_COLUMNS, type EventRow } from "./log-database.js";
import { acquireWriterLock, currentWriter, releaseWriterLock, type WriterIdentity } from "./writer-lock.js";
import { decodeRunStartedRow, type RowWithoutPayload } from "./run-started-row.js";

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
  /** Commit appends in groups (see above); otherwise each append commits before it returns. */
  readonly groupCommit?: boolean;
}

/** Characters of a big payload read at a time (`scanLines`). */
const LINE_PART_CHARS = 1 << 20;

/** Event types whose group commits at once: an LLM request is on disk before it is sent, and its outcome right after. */
const COMMIT_AT_ONCE: ReadonlySet<string> = new Set(["LlmCallStarted", "LlmCallCompleted", "LlmCallFailed", "LlmCallAborted"]);
/** A group this large commits without waiting for the turn to end (bounds what a failure loses, and memory). */
const MAX_GROUP_EVENTS = 2000;

/** A row as an event, its payload parsed (each field named: a literal opening with a spread of the row cost more, V8 11). */
export const decodeRow = (row: EventRow): StoredEvent =>
  decodeEvent({ seq: row.seq, v: row.v, stream: row.stream, position: row.position, type: row.type, run_id: row.run_id, job_id: row.job_id, ts: row.ts, data: payloadOfRow(row) });

/** A row's payload parsed; one that is not JSON is a corrupt log, said as such (not a bare SyntaxError). */
export function payloadOfRow(row: EventRow): unknown {
  try {
    return JSON.parse(row.data);
  } catch {
    throw new EventDecodeError(`event ${row.seq} (${row.type}): its payload is not JSON`);
  }
}

/** What a scan's visitor threw, told apart from what reading the log threw. */
class VisitorFailure {
  constructor(readonly cause: unknown) {}
}

/** `visit(a, b)`, what it throws wrapped as the visitor's own. */
function visiting<A, B>(visit: (a: A, b: B) => void, a: A, b: B): void {
  try {
    visit(a, b);
  } catch (error) {
    throw new VisitorFailure(error);
  }
}

export class EventStore {
  private readonly insert: Database.Statement;
  /**
   * Every stream's version, read once when the writer opens the log and kept up to date by its
   * appends. The writer lock keeps other processes out, and `UNIQUE(stream, position)` refuses an
   * append that lands on a taken position anyway.
   */
  private readonly versions: Map<string, number>;
  private readonly insertContent: Database.Statement;
  private readonly path: string;
  private readonly begin: Database.Statement;
  private readonly commitStatement: Database.Statement;
  /** The last seq given out (committed or in the open group). */
  private seq: number;
  /** Events of the open group, not yet written; they are inserted in one go when it commits. */
  private pending: RecordedEvent[] = [];
  private pendingContents: [string, string][] = [];
  /** How many appends the open group holds (a lone one that lands on a taken position is refused, not lost). */
  private pendingAppends = 0;
  private scheduled: NodeJS.Immediate | null = null;
  /** The error that lost a group: every later append fails with it. */
  private broken: unknown = null;
  /** Told of each group once it is committed, in seq order. */
  private committed: (events: readonly StoredEvent[]) => void = () => {};
  /** Told when a commit the store scheduled itself failed (nobody else would hear of it). */
  private failed: (error: unknown) => void = () => {};

  private constructor(
    readonly runDir: string,
    readonly runId: string,
    private readonly db: Database.Database,
    private readonly writer: WriterIdentity,
    private readonly now: () => Date,
    private readonly groupCommit: boolean,
  ) {
    this.path = eventsDbPath(runDir);
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.commitStatement = db.prepare("COMMIT");
    this.insert = db.prepare("INSERT INTO events (seq, v, stream, position, type, run_id, job_id, ts, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    this.insertContent = db.prepare("INSERT OR IGNORE INTO contents (ref, text) VALUES (?, ?)");
    this.versions = new Map();
    this.seq = 0;
    this.readHeads(true);
  }

  /**
   * Creates the run directory if needed, opens (or migrates) its log and takes the writer lock.
   * A directory that lost its log but kept the mirror is refused (`EventLogLostError`): a fresh
   * log there would overwrite the only copy of the run.
   */
  static open(runDir: string, runId: string, options: OpenOptions = {}): EventStore {
    try {
      makeDirectory(runDir);
    } catch (error) {
      throw eventLogFailure(error, runDir);
    }
    refuseLostLog(runDir);
    return EventStore.locked(openWritableDatabase(runDir), runDir, runId, options);
  }

  /**
   * Opens the log of a run that exists (migrated if it is an older one) and takes the writer
   * lock; its run id is its latest start's. Null when `runDir` holds no log (a file without an
   * events table is left as it is) or no run ever started in it. One connection, where asking
   * `peekRun` first opened the file a second time.
   */
  static openExisting(runDir: string, options: OpenOptions = {}): EventStore | null {
    refuseLostLog(runDir);
    const db = openExistingWritableDatabase(runDir);
    if (db === null) return null;
    let runId: string | undefined;
    try {
      runId = db.prepare("SELECT run_id FROM events WHERE stream = 'run' AND type = 'RunStarted' ORDER BY seq DESC LIMIT 1").pluck().get() as string | undefined;
      if (runId === undefined && db.prepare("SELECT 1 FROM events LIMIT 1").get() !== undefined) {
        throw new EventLogCorruptError({ path: eventsDbPath(runDir), problem: missingStartProblem(eventsDbPath(runDir)) });
      }
    } catch (error) {
      db.close();
      throw eventLogFailure(error, eventsDbPath(runDir));
    }
    if (runId === undefined) {
      db.close();
      return null;
    }
    return EventStore.locked(db, runDir, runId, options);
  }

  /** The store over `db`, once it holds the writer lock (`db` is closed when it cannot). */
  private static locked(db: Database.Database, runDir: string, runId: string, options: OpenOptions): EventStore {
    const now = options.now ?? (() => new Date());
    const writer = currentWriter();
    let locked = false;
    try {
      acquireWriterLock(db, runDir, writer, options.command ?? `trace-bench (pid ${process.pid})`, now());
      locked = true;
      return new EventStore(runDir, runId, db, writer, now, options.groupCommit === true);
    } catch (error) {
      try {
        // Only a lock this call took: a refused open in the holder's own process must leave the holder's.
        if (locked) releaseWriterLock(db, writer);
      } finally {
        db.close();
      }
      throw eventLogFailure(error, eventsDbPath(runDir));
    }
  }

  /**
   * Records `events` (all of `stream`) if the stream is at `expectedVersion`, with the texts they
   * refer to (`contents`, by ref); returns them as stored. Without group commit they are committed
   * when it returns; with it, when `onCommit` hears of them. Throws `WrongExpectedVersionError`,
   * `EventLogWriteError` or `InvalidAppendError`; nothing of this append is recorded then.
   */
  append(stream: string, expectedVersion: number, events: readonly NewEvent[], contents?: Contents): StoredEvent[] {
    if (events.length === 0) return [];
    if (this.broken !== null) throw this.broken;
    const actual = this.streamVersion(stream);
    if (actual !== expectedVersion) throw new WrongExpectedVersionError({ stream, expected: expectedVersion, actual });
    for (const event of events) {
      const jobId = event.job_id ?? null;
      if (JOB_EVENT_TYPES.has(event.type) !== (jobId !== null)) {
        throw new InvalidAppendError({ problem: `${event.type} ${jobId === null ? "needs" : "must not have"} a job_id` });
      }
      if (streamOf(jobId) !== stream) throw new InvalidAppendError({ problem: `${event.type} of ${streamOf(jobId)} appended to stream ${stream}` });
    }
    if (!Number.isNaN(FULL_FROM_SEQ) && this.seq + events.length >= FULL_FROM_SEQ) this.lose(simulatedDiskFull());
    const ts = this.now().toISOString();
    const stored = events.map((event, i) => {
      const recorded = new RecordedEvent(this.seq + i + 1, EVENT_SCHEMA_VERSION, stream, expectedVersion + i + 1, event.type, this.runId, event.job_id ?? null, ts, JSON.stringify(event.data));
      this.pending.push(recorded);
      // Its type and payload come from `event`, a NewEvent: the pair is a StoredEvent's.
      return recorded as unknown as StoredEvent;
    });
    if (contents !== undefined) for (const entry of contents) this.pendingContents.push(entry);
    this.seq += events.length;
    this.versions.set(stream, expectedVersion + events.length);
    this.pendingAppends += 1;
    if (!this.groupCommit || stream === RUN_STREAM || events.some((e) => COMMIT_AT_ONCE.has(e.type)) || this.pending.length >= MAX_GROUP_EVENTS) {
      this.commit();
    } else {
      this.scheduled ??= setImmediate(() => {
        this.scheduled = null;
        try {
          this.commit();
        } catch (error) {
          this.failed(error);
        }
      });
    }
    return stored;
  }

  /** Commits the open group, if any, and tells `onCommit`; throws (losing the group) if it cannot. */
  flush(): void {
    if (this.broken !== null) throw this.broken;
    this.commit();
  }

  /** Who hears of committed events, and of a failed commit nobody was waiting for. */
  onCommit(committed: (events: readonly StoredEvent[]) => void, failed: (error: unknown) => void): void {
    this.committed = committed;
    this.failed = failed;
  }

  /** Writes the open group in one transaction; then hands its events on. */
  private commit(): void {
    if (this.scheduled !== null) clearImmediate(this.scheduled);
    this.scheduled = null;
    if (this.pending.length === 0) return;
    try {
      this.begin.run();
      for (const [ref, text] of this.pendingContents) this.insertContent.run(ref, text);
      for (const e of this.pending) this.insert.run(e.seq, e.v, e.stream, e.position, e.type, e.run_id, e.job_id, e.ts, e.payload);
      this.commitStatement.run();
    } catch (error) {
      // A lone append onto a position someone else took is refused as such; anything else loses the group.
      const taken = String((error as { code?: unknown }).code).startsWith("SQLITE_CONSTRAINT");
      const lone = this.pendingAppends === 1 ? this.pending[0]! : null;
      if (!taken || lone === null) this.lose(error);
      this.rollback();
      this.rereadVersions();
      throw new WrongExpectedVersionError({ stream: lone.stream, expected: lone.position - 1, actual: this.streamVersion(lone.stream) });
    }
    const events = this.pending as unknown as StoredEvent[];
    this.clearPending();
    if (events.some((e) => e.seq === KILL_AFTER_COMMIT)) process.kill(process.pid, "SIGKILL");
    this.committed(events);
  }

  private clearPending(): void {
    this.pending = [];
    this.pendingContents = [];
    this.pendingAppends = 0;
  }

  private rollback(): void {
    try {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
    } catch {
      // The connection rolled back on its own (SQLite does on a full disk).
    }
    this.clearPending();
  }

  /** The open group cannot be committed: drop it, forget its versions, refuse every later append. */
  private lose(error: unknown): never {
    this.rollback();
    if (this.scheduled !== null) clearImmediate(this.scheduled);
    this.scheduled = null;
    this.rereadVersions();
    this.broken = eventLogFailure(error, this.path);
    throw this.broken;
  }

  /** How many events `stream` holds (0 for a new stream): the version the next append expects. */
  streamVersion(stream: string): number {
    return this.versions.get(stream) ?? 0;
  }

  /**
   * What the log itself holds: every stream's version and the last seq (at open, and after a lost
   * group). `atOpen`: a stream with a hole (fewer events than its version) is refused before
   * anything is appended to it.
   */
  private readHeads(atOpen = false): void {
    this.versions.clear();
    for (const h of this.db.prepare("SELECT stream, MAX(position) AS version, count(*) AS events FROM events GROUP BY stream").all() as { stream: string; version: number; events: number }[]) {
      if (atOpen && h.events !== h.version) throw new EventLogCorruptError({ path: this.path, problem: streamGapProblem(gapIn(this.db, "events", h.stream), this.path) });
      this.versions.set(h.stream, h.version);
    }
    // AUTOINCREMENT never reuses a seq, even one whose row is gone.
    const used = lastGivenSeq(this.db);
    const last = this.lastSeq();
    if (atOpen && used > last) throw new EventLogCorruptError({ path: this.path, problem: removedTailProblem(used, last, this.path) });
    this.seq = Math.max(used, last);
  }

  private rereadVersions(): void {
    try {
      this.readHeads();
    } catch {
      // The log cannot be read either; the commit's own error says why.
    }
  }

  // Reads see what is committed; a grouping writer's open group is not in the database yet.

  /** Raw rows after `afterSeq`, in seq order (for mirrors, which copy the stored text). */
  rowsAfter(afterSeq: number): EventRow[] {
    return this.db.prepare(`SELECT ${ROW_COLUMNS} FROM events WHERE seq > ? ORDER BY seq`).all(afterSeq) as EventRow[];
  }

  /**
   * Every committed event after `afterSeq` in seq order (only those of `types` when given), each decoded and handed
   * to `visit` as it is read (with its stored row, which mirrors copy), so the log is never held whole; returns the
   * log's last seq.
   */
  scan(visit: (event: StoredEvent, row: EventRow) => void, types?: readonly EventType[], afterSeq = 0): number {
    try {
      const only = types === undefined ? "" : `AND type IN (${types.map(() => "?").join(", ")})`;
      const rows = this.db.prepare(`SELECT ${ROW_COLUMNS} FROM events WHERE seq > ? ${only} ORDER BY seq`).iterate(afterSeq, ...(types ?? [])) as IterableIterator<EventRow>;
      for (const row of rows) visiting(visit, decodeRow(row), row);
      return this.lastSeq();
    } catch (error) {
      throw this.readFailure(error);
    }
  }

  /**
   * Every committed event in seq order, each decoded and handed to `visit` with its mirror line
   * (`mirrorLine`'s bytes), as it is read; returns the log's last seq. The line comes from SQLite
   * whole and is what the event is parsed from (replay reads and mirrors every row).
   * `decoded`: events the caller already decoded, by seq (a run's starts: its matrix).
   */
  scanLines(visit: (event: StoredEvent, line: string | LinePieces) => void, decoded?: ReadonlyMap<number, StoredEvent>): number {
    try {
      const rows = this.db.prepare(`SELECT ${MIRROR_LINE_COLUMNS_BUT_STARTS} FROM events ORDER BY seq`).iterate() as IterableIterator<MirrorLineRow & { readonly start: number }>;
      const byRow = this.db.prepare(`SELECT ${ROW_COLUMNS} FROM events WHERE seq = ?`);
      const envelope = this.db.prepare("SELECT seq, v, stream, position, type, run_id, job_id, ts, NULL AS data FROM events WHERE seq = ?");
      for (const row of rows) {
        if (row.start === 1) {
          // A start: its matrix decoded an entry at a time, its line read in pieces (a big run's is megabytes).
          const head = envelope.get(row.seq) as RowWithoutPayload;
          visiting(visit, decoded?.get(row.seq) ?? decodeRunStartedRow(this.db, "events", head, decodeRow), new LinePieces(() => this.linePieces(head)));
        } else if (isPlainLine(row)) {
          visiting(visit, decoded?.get(row.seq) ?? decodeEvent(JSON.parse(row.line)), row.line);
        } else {
          const whole = byRow.get(row.seq) as EventRow;
          visiting(visit, decoded?.get(row.seq) ?? decodeRow(whole), mirrorLine(whole));
        }
      }
      return this.lastSeq();
    } catch (error) {
      throw this.readFailure(error);
    }
  }

  /** `mirrorLine` of the row `head` names, its payload read a part at a time. */
  private *linePieces(head: RowWithoutPayload): Generator<string> {
    yield mirrorLineHead(head);
    const part = this.db.prepare("SELECT substr(data, ?, ?) FROM events WHERE seq = ?").pluck();
    // SQLite counts characters, never splitting one: the parts join into the payload as stored.
    for (let from = 1; ; from += LINE_PART_CHARS) {
      const text = part.get(from, LINE_PART_CHARS, head.seq) as string | null;
      if (!text) break;
      yield text;
      // Fewer UTF-16 units than characters asked for: it was the last part (a character is one or two units).
      if (text.length < LINE_PART_CHARS) break;
    }
    yield MIRROR_LINE_END;
  }

  /** What a scan throws: its visitor's own failure (a file it could not write) as it is, the log's as an event-log failure. */
  private readFailure(error: unknown): unknown {
    return error instanceof VisitorFailure ? error.cause : eventLogFailure(error, this.path);
  }

  /** The position of each stream's last event, by stream. */
  lastPositions(): Map<string, number> {
    // With no group open, the versions this writer keeps are the committed ones (no query, which
    // takes a while on a big log; docs/performance.md: ledger, 514b50e).
    if (this.pending.length === 0) return new Map(this.versions);
    try {
      return lastPositions(this.db);
    } catch (error) {
      throw eventLogFailure(error, this.path);
    }
  }

  /**
   * `lastPositions` without a copy when no group is open: the versions this writer keeps, for a
   * caller that appends nothing while it holds them (replay, whose copy of a big log's was its
   * memory: docs/performance.md, row 12).
   */
  streamEnds(): ReadonlyMap<string, number> {
    return this.pending.length === 0 ? this.versions : this.lastPositions();
  }

  /** The events of one stream, in order (a job's history when it runs again). */
  streamEvents(stream: string): StoredEvent[] {
    try {
      return (this.db.prepare(`SELECT ${ROW_COLUMNS} FROM events WHERE stream = ? ORDER BY position`).all(stream) as EventRow[]).map(decodeRow);
    } catch (error) {
      throw eventLogFailure(error, this.path);
    }
  }

  /** The run's latest `RunStarted`, found through the stream index (a start holds the matrix: only one is decoded); null if none. */
  latestRunStarted(): StoredEvent | null {
    try {
      // Its matrix read an entry at a time (run-started-row.ts): a big run's is megabytes of JSON.
      const row = this.db.prepare(`SELECT seq, v, stream, position, type, run_id, job_id, ts, NULL AS data FROM events WHERE stream = 'run' AND type = 'RunStarted' ORDER BY position DESC LIMIT 1`).get() as RowWithoutPayload | undefined;
      return row === undefined ? null : decodeRunStartedRow(this.db, "events", row, decodeRow);
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

  /** The saved snapshot `name`: the log position it reflects, its format and its text; null if none. */
  snapshot(name: string): { seq: number; format: string; data: string } | null {
    try {
      return (this.db.prepare("SELECT seq, format, data FROM snapshots WHERE name = ?").get(name) as { seq: number; format: string; data: string } | undefined) ?? null;
    } catch (error) {
      throw eventLogFailure(error, this.path);
    }
  }

  /** Where snapshot `name` stands (its log position and format), without reading it. */
  snapshotPosition(name: string): { seq: number; format: string } | null {
    try {
      return (this.db.prepare("SELECT seq, format FROM snapshots WHERE name = ?").get(name) as { seq: number; format: string } | undefined) ?? null;
    } catch (error) {
      throw eventLogFailure(error, this.path);
    }
  }

  /** Saves snapshot `name` of a fold of the log up to `seq`, replacing the one saved before. */
  saveSnapshot(name: string, seq: number, format: string, data: string): void {
    try {
      this.db.prepare("INSERT OR REPLACE INTO snapshots (name, seq, format, data) VALUES (?, ?, ?, ?)").run(name, seq, format, data);
    } catch (error) {
      throw eventLogFailure(error, this.path);
    }
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

  /** Commits what is pending, releases the writer lock and closes the database (a group that cannot commit is lost). */
  close(): void {
    if (!this.db.open) return;
    try {
      if (this.broken === null) this.commit();
    } catch {
      // Lost: the log keeps what committed before, and whoever appended heard of the failure.
    }
    try {
      releaseWriterLock(this.db, this.writer);
    } catch {
      // A full or read-only disk: the lock row stays, and the next writer takes it over (this pid is gone by then).
    }
    this.db.close();
  }
}
