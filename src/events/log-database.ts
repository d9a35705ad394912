/**
 * The SQLite file behind a run's event log: its tables, the migration of logs written before
 * streams (schema 1) and the row shape shared by the writer, the reader and the mirrors.
 *
 * Schema 2: every event has a stream (`run`, `job-<id>`) and a position in it, unique together;
 * `PRAGMA user_version` holds the schema. Schema-1 logs are migrated when a writer opens them
 * (positions are derived from seq order) and read as they are by read-only readers.
 */
import { randomBytes } from "node:crypto";
import { accessSync, constants, existsSync, linkSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import Database from "better-sqlite3";
import { EVENT_SCHEMA_VERSION } from "./event-schema.js";
import { EventLogCorruptError, eventLogFailure } from "./event-log-errors.js";
import { immediateTransaction } from "./immediate-transaction.js";
import { sqliteAddonPath } from "./sqlite-addon.js";
import { LOG_PAGE_CACHE_KIB, requireEventLog, requireSoundPages } from "./log-checks.js";
import { privateCopy, type PrivateCopy } from "../fs/private-copy.js";

export const EVENTS_DB = "events.db";

/** better-sqlite3's compiled addon by its path (see sqlite-addon.ts), loaded with this module. */
const NATIVE_BINDING = ((): string | undefined => {
  const path = sqliteAddonPath();
  if (path === undefined) return undefined;
  try {
    createRequire(import.meta.url)(path);
    return path;
  } catch {
    return undefined;
  }
})();

export interface EventRow {
  seq: number;
  v: number;
  stream: string;
  position: number;
  type: string;
  run_id: string;
  job_id: string | null;
  ts: string;
  data: string;
}

export const ROW_COLUMNS = "seq, v, stream, position, type, run_id, job_id, ts, data";
/** Schema-1 logs have no stream columns: derive them (positions by seq order within a stream). */
const LEGACY_SOURCE =
  "(SELECT seq, 1 AS v, CASE WHEN job_id IS NULL THEN 'run' ELSE 'job-' || job_id END AS stream, " +
  "ROW_NUMBER() OVER (PARTITION BY job_id ORDER BY seq) AS position, type, run_id, job_id, ts, data FROM events)";

export const eventsDbPath = (runDir: string) => join(runDir, EVENTS_DB);

/** The payload text the log stored for an event it returned (so mirrors copy it instead of re-serializing). */
export const storedPayload = new WeakMap<object, string>();

/**
 * An event as the writer recorded it: the envelope and the payload text the log stores, parsed
 * back only when someone reads `data`. In the writer most events are only counted or passed on
 * (a trivial job's 9 events are read for 2), and parsing each one was a good part of the job
 * (docs/performance.md: ledger, b6ddee7).
 */
export class RecordedEvent {
  constructor(
    readonly seq: number,
    readonly v: number,
    readonly stream: string,
    readonly position: number,
    readonly type: string,
    readonly run_id: string,
    readonly job_id: string | null,
    readonly ts: string,
    /** The payload as stored. */
    readonly payload: string,
    /** The payload parsed already (a row read back from the log), or undefined: parsed when first read. */
    private parsed: unknown = undefined,
  ) {}

  /** The payload as stored, parsed back: what any reader of the log gets. */
  get data(): unknown {
    if (this.parsed === undefined) this.parsed = JSON.parse(this.payload);
    return this.parsed;
  }
}

/** The payload text of an event as the log stores it. */
export function payloadOf(event: { readonly data: unknown }): string {
  if (event instanceof RecordedEvent) return event.payload;
  return storedPayload.get(event) ?? JSON.stringify(event.data);
}

/** The jsonl mirror line of a row: the envelope, then the payload exactly as stored. */
export const mirrorLine = (row: EventRow) => `${mirrorLineHead(row)}${row.data}${MIRROR_LINE_END}`;

/** `mirrorLine` up to its payload: the envelope. */
export const mirrorLineHead = (row: Omit<EventRow, "data">) =>
  `{"seq":${row.seq},"v":${row.v},"stream":${JSON.stringify(row.stream)},"position":${row.position},"type":${JSON.stringify(row.type)},"run_id":${JSON.stringify(row.run_id)},"job_id":${JSON.stringify(row.job_id)},"ts":${JSON.stringify(row.ts)},"data":`;

/** `mirrorLine` after its payload. */
export const MIRROR_LINE_END = "}\n";

/**
 * A mirror line handed over in pieces, in order (the envelope, the payload a part at a time, the
 * end): a big run's start is megabytes, and building it whole (SQLite's concatenation, its JSON
 * check, the JavaScript string) set a big replay's peak (docs/performance.md: ledger, 9ffa7c8).
 */
export class LinePieces {
  constructor(readonly pieces: () => Iterable<string>) {}
}

/**
 * `mirrorLine` built by SQLite (`line`, with the row's `seq`): the text comes out whole, where
 * building it in JavaScript made a dozen strings per row, and it parses to the row's event.
 * `payloadValid`: the payload is one JSON value on its own; a doctored one such as `1,"type":"x"`
 * would otherwise parse inside the line as keys of the envelope. An envelope string with a
 * character to escape (none is written so, but a log can be doctored) may be escaped otherwise
 * than by `JSON.stringify`. `isPlainLine` tells both; otherwise the row and `mirrorLine` are the truth.
 */
const MIRROR_LINE_EXPRESSION =
  `'{"seq":' || seq || ',"v":' || v || ',"stream":' || json_quote(stream) || ',"position":' || position || ',"type":' || json_quote(type) || ` +
  `',"run_id":' || json_quote(run_id) || ',"job_id":' || json_quote(job_id) || ',"ts":' || json_quote(ts) || ',"data":' || data || '}' || char(10)`;
export const MIRROR_LINE_COLUMNS = `seq, json_valid(data) AS payloadValid, ${MIRROR_LINE_EXPRESSION} AS line`;

/** `MIRROR_LINE_COLUMNS`, but a start's row is neither checked nor built (`line` null, `start` 1): its line is read in pieces. */
export const MIRROR_LINE_COLUMNS_BUT_STARTS =
  `seq, type = 'RunStarted' AS start, CASE WHEN type = 'RunStarted' THEN 0 ELSE json_valid(data) END AS payloadValid, ` +
  `CASE WHEN type = 'RunStarted' THEN NULL ELSE ${MIRROR_LINE_EXPRESSION} END AS line`;

export interface MirrorLineRow {
  readonly seq: number;
  readonly payloadValid: number;
  readonly line: string | null;
}

/** Whether a row of `MIRROR_LINE_COLUMNS` can be parsed as its event and is `mirrorLine`'s bytes. */
export const isPlainLine = (row: MirrorLineRow): row is MirrorLineRow & { readonly line: string } =>
  row.payloadValid === 1 && row.line !== null && PLAIN_ENVELOPE.test(row.line);
const PLAIN_ENVELOPE = /^[^\\]*?,"data":/;

function schemaOf(db: Database.Database, path: string): number {
  const version = db.pragma("user_version", { simple: true }) as number;
  if (version > EVENT_SCHEMA_VERSION) {
    throw new EventLogCorruptError({ path, problem: `event log schema ${version} is newer than this trace-bench understands (${EVENT_SCHEMA_VERSION}); upgrade trace-bench` });
  }
  return version === 0 ? 1 : version;
}


/**
 * Opens the log for writing (migrated if it is an older one), creating it when `runDir` has none.
 * An existing file must be a sound trace-bench log (log-checks.ts): it is refused as it is otherwise.
 */
export function openWritableDatabase(runDir: string): Database.Database {
  const path = eventsDbPath(runDir);
  if (!existsSync(path)) createLogFile(runDir);
  return openLogForWriting(path);
}

/** Like `openWritableDatabase`, but null, with nothing created, when `runDir` holds no log file. */
export function openExistingWritableDatabase(runDir: string): Database.Database | null {
  const path = eventsDbPath(runDir);
  if (!existsSync(path)) return null;
  return openLogForWriting(path);
}

function openLogForWriting(path: string): Database.Database {
  let db: Database.Database | null = null;
  try {
    db = new Database(path, { fileMustExist: true, nativeBinding: NATIVE_BINDING });
    db.pragma("busy_timeout = 5000");
    requireEventLog(db, path);
    // Every page is checked before a writer appends (a resumed log may have been damaged since); nothing is written before.
    requireSoundPages(db, path);
    setUpWritable(db, path, true);
    return db;
  } catch (error) {
    db?.close();
    throw eventLogFailure(error, path);
  }
}

/**
 * Creates `runDir`'s log whole: its tables are made in a file of its own, which is then linked in
 * as `events.db` (a link never replaces a file). So an `events.db` without tables was never
 * trace-bench's: two `run`s starting on one new run directory used to find the other's half-made
 * file. `fill` writes more before the file appears (the events `repair` rebuilds). Returns false
 * when another process linked its log first.
 */
export function createLogFile(runDir: string, fill?: (db: Database.Database) => void): boolean {
  const path = eventsDbPath(runDir);
  const draft = `${path}.new-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    const db = new Database(draft, { nativeBinding: NATIVE_BINDING });
    try {
      setUpWritable(db, draft, false);
      fill?.(db);
      // Everything into the file itself, now, where a failure throws: the checkpoint that close
      // runs fails quietly (a full disk), leaving the tables in the WAL, which is not linked in.
      db.pragma("wal_checkpoint(TRUNCATE)");
    } finally {
      db.close(); // the last connection: its WAL is checkpointed into the file and removed
    }
    // A WAL still there holds what the file lacks: linking the file alone would publish a damaged log.
    if (existsSync(`${draft}-wal`)) throw Object.assign(new Error(`the new event log ${draft} could not be completed`), { code: "SQLITE_IOERR" });
    try {
      linkSync(draft, path);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw error;
    }
  } catch (error) {
    throw eventLogFailure(error, path);
  } finally {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) {
      try {
        rmSync(`${draft}${suffix}`, { force: true });
      } catch {
        // Left behind (a stray that replay removes); the error that matters is thrown above.
      }
    }
  }
}

/** The tables besides `events` (with the stream index), each made `IF NOT EXISTS`: some came to schema 2 after it shipped (`contents`, `snapshots`), so a log at version 2 may lack them. */
const LATER_TABLES = ["writer", "subscriber_positions", "contents", "snapshots"];
const holdsEveryTable = (db: Database.Database) =>
  db.prepare(`SELECT count(*) FROM sqlite_master WHERE (type = 'table' AND name IN (${LATER_TABLES.map((t) => `'${t}'`).join(", ")})) OR (type = 'index' AND name = 'events_by_stream')`).pluck().get() ===
  LATER_TABLES.length + 1;

/** The connection's settings, then the tables created or migrated (`hasEvents`: the file already holds a log). */
function setUpWritable(db: Database.Database, path: string, hasEvents: boolean): void {
  db.pragma("journal_mode = WAL");
  // Committed transactions survive a killed process; only an OS crash could lose the last ones.
  db.pragma("synchronous = NORMAL");
  db.pragma(`cache_size = -${LOG_PAGE_CACHE_KIB}`);
  const schema = schemaOf(db, path);
  // A current log with all its tables needs nothing created: no write transaction (every replay and resume opens one).
  if (hasEvents && schema === EVENT_SCHEMA_VERSION && holdsEveryTable(db)) return;
  immediateTransaction(db, () => {
    if (!hasEvents) {
      db.exec(
        "CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, v INTEGER NOT NULL, stream TEXT NOT NULL, position INTEGER NOT NULL, " +
          "type TEXT NOT NULL, run_id TEXT NOT NULL, job_id TEXT, ts TEXT NOT NULL, data TEXT NOT NULL);",
      );
    } else if (schema === 1) {
      db.exec(
        "ALTER TABLE events ADD COLUMN v INTEGER NOT NULL DEFAULT 1; ALTER TABLE events ADD COLUMN stream TEXT; ALTER TABLE events ADD COLUMN position INTEGER;" +
          "UPDATE events SET stream = CASE WHEN job_id IS NULL THEN 'run' ELSE 'job-' || job_id END;" +
          "UPDATE events SET position = p.position FROM (SELECT seq, ROW_NUMBER() OVER (PARTITION BY stream ORDER BY seq) AS position FROM events) AS p WHERE events.seq = p.seq;" +
          "DROP INDEX IF EXISTS events_by_job;",
      );
    }
    db.exec(
      "CREATE UNIQUE INDEX IF NOT EXISTS events_by_stream ON events (stream, position);" +
        "CREATE TABLE IF NOT EXISTS writer (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, host TEXT NOT NULL, process_start TEXT, started_at TEXT NOT NULL, command TEXT NOT NULL);" +
        "CREATE TABLE IF NOT EXISTS subscriber_positions (name TEXT PRIMARY KEY, position INTEGER NOT NULL);" +
        // Prompt messages and replies, stored once and referenced from events (content-ref.ts).
        "CREATE TABLE IF NOT EXISTS contents (ref TEXT PRIMARY KEY, text TEXT NOT NULL) WITHOUT ROWID;" +
        // Folds of the log saved at a position (writer-state.ts): a cache, never the truth.
        "CREATE TABLE IF NOT EXISTS snapshots (name TEXT PRIMARY KEY, seq INTEGER NOT NULL, format TEXT NOT NULL, data TEXT NOT NULL);",
    );
    db.pragma(`user_version = ${EVENT_SCHEMA_VERSION}`);
  });
}

/** The stored texts among `refs` (logs written before the content table have none). */
export function readContents(db: Database.Database, refs: Iterable<string>): Map<string, string> {
  const found = new Map<string, string>();
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'contents'").get() === undefined) return found;
  const select = db.prepare("SELECT text FROM contents WHERE ref = ?").pluck();
  for (const ref of refs) {
    if (found.has(ref)) continue;
    const text = select.get(ref) as string | undefined;
    if (text !== undefined) found.set(ref, text);
  }
  return found;
}

/**
 * The position of each stream's last event, by stream: where a reader of the whole log is done
 * with a job. Read from the stream index alone, a fraction of asking for each job's highest seq
 * (docs/performance.md: ledger, c942a0f).
 */
export function lastPositions(db: Database.Database, source = "events"): Map<string, number> {
  return new Map(db.prepare(`SELECT stream, max(position) FROM ${source} GROUP BY stream`).raw().all() as [string, number][]);
}

export interface ReadableDatabase {
  readonly db: Database.Database;
  /** What to select `ROW_COLUMNS` from: the table, or a view of a schema-1 table with derived streams. */
  readonly source: string;
  /** Closes `db` (and removes the copy it was read from, if any). */
  readonly close: () => void;
}

/**
 * Opens the log read-only (no lock, no migration, nothing written); any schema this trace-bench
 * knows. On a read-only file system SQLite cannot create the `-shm` file that a reader of a WAL
 * log needs when the writer left none (a copied or checkpointed log): the log and its `-wal`
 * are then read from a private copy, so that committed events not yet checkpointed are read too.
 */
export function openReadableDatabase(runDir: string): ReadableDatabase {
  const path = eventsDbPath(runDir);
  try {
    return openReadOnly(path, path, () => {});
  } catch (error) {
    if (!isReadOnlyDirectory(error, runDir)) throw eventLogFailure(error, path);
  }
  let copy: PrivateCopy;
  try {
    copy = privateCopy(path, [`${path}-wal`]);
  } catch (error) {
    throw eventLogFailure(error, path);
  }
  try {
    return openReadOnly(copy.path, path, copy.remove);
  } catch (error) {
    copy.remove();
    throw eventLogFailure(error, path);
  }
}

/** Whether `error` (opening `runDir`'s log) is SQLite unable to open a file in a directory it may not write to. */
function isReadOnlyDirectory(error: unknown, runDir: string): boolean {
  if (!String((error as { code?: unknown } | null)?.code ?? "").startsWith("SQLITE_CANTOPEN") || !existsSync(eventsDbPath(runDir))) return false;
  try {
    accessSync(runDir, constants.W_OK);
    return false;
  } catch {
    return true;
  }
}

/** `file` opened read-only as a log; `shown`: the path errors name; `release`: what closing also does. */
function openReadOnly(file: string, shown: string, release: () => void): ReadableDatabase {
  const db = new Database(file, { readonly: true, fileMustExist: true, nativeBinding: NATIVE_BINDING });
  try {
    db.pragma("busy_timeout = 5000");
    db.pragma(`cache_size = -${LOG_PAGE_CACHE_KIB}`);
    const schema = schemaOf(db, shown);
    requireEventLog(db, shown);
    db.prepare("SELECT 1 FROM events LIMIT 1").get();
    const close = () => {
      try {
        if (db.open) db.close();
      } finally {
        release();
      }
    };
    return { db, source: schema === 1 ? LEGACY_SOURCE : "events", close };
  } catch (error) {
    db.close();
    throw error;
  }
}
