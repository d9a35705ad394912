/**
 * The run's event log. SQLite (WAL) in `<run_dir>/events.db` is the source of truth: an append is
 * one transaction, and only after it commits are the lines written to the jsonl mirrors
 * (`<run_dir>/events.jsonl` for the whole run, `jobs/<job_id>/events.jsonl` per job). A crash
 * between the two leaves a mirror behind; opening the store repairs it from SQLite.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { decodeEvent, JOB_EVENT_TYPES, type NewEvent, type StoredEvent } from "./event-schema.js";

export const EVENTS_DB = "events.db";
export const RUN_MIRROR = "events.jsonl";

export function jobMirrorPath(runDir: string, jobId: string): string {
  return join(runDir, "jobs", jobId, "events.jsonl");
}

interface Row {
  seq: number;
  type: string;
  run_id: string;
  job_id: string | null;
  ts: string;
  data: string;
}

/** `writeSync` may write less than asked; mirrors must get every byte. */
function writeFully(fd: number, text: string): void {
  const bytes = Buffer.from(text, "utf8");
  for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
}

const mirrorLine = (row: Row) =>
  `{"seq":${row.seq},"type":${JSON.stringify(row.type)},"run_id":${JSON.stringify(row.run_id)},"job_id":${JSON.stringify(row.job_id)},"ts":${JSON.stringify(row.ts)},"data":${row.data}}\n`;

/** Test hook: SIGKILL this process right after the commit of this seq, before its mirror lines. */
const KILL_AFTER_COMMIT = Number(process.env.TRACE_BENCH_TEST_KILL_AFTER_SEQ ?? NaN);

export class EventStore {
  private runFd: number | undefined;
  private readonly jobFds = new Map<string, number>();
  private readonly insert: Database.Statement<[string, string, string | null, string, string]>;
  private readonly appendMany: (events: readonly NewEvent[], ts: string) => Row[];

  private constructor(
    readonly runDir: string,
    readonly runId: string,
    private readonly db: Database.Database,
    private readonly now: () => Date,
  ) {
    this.insert = db.prepare("INSERT INTO events (type, run_id, job_id, ts, data) VALUES (?, ?, ?, ?, ?)");
    this.appendMany = db.transaction((events: readonly NewEvent[], ts: string) =>
      events.map((event) => {
        const jobId = event.job_id ?? null;
        if (JOB_EVENT_TYPES.has(event.type) !== (jobId !== null)) {
          throw new Error(`${event.type} ${jobId === null ? "needs" : "must not have"} a job_id`);
        }
        const data = JSON.stringify(event.data);
        const info = this.insert.run(event.type, this.runId, jobId, ts, data);
        return { seq: Number(info.lastInsertRowid), type: event.type, run_id: this.runId, job_id: jobId, ts, data };
      }),
    );
  }

  /** Opens (creating when asked) the store of a run directory and repairs lagging mirrors. */
  static open(runDir: string, runId: string, options: { create: boolean; now?: () => Date }): EventStore {
    const path = join(runDir, EVENTS_DB);
    if (!options.create && !existsSync(path)) throw new Error(`no event log at ${path}`);
    mkdirSync(join(runDir, "jobs"), { recursive: true });
    const db = new Database(path);
    db.pragma("journal_mode = WAL");
    // Committed transactions survive a killed process; only an OS crash could lose the last ones.
    db.pragma("synchronous = NORMAL");
    db.exec(
      "CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, run_id TEXT NOT NULL, job_id TEXT, ts TEXT NOT NULL, data TEXT NOT NULL);" +
        "CREATE INDEX IF NOT EXISTS events_by_job ON events (job_id, seq);",
    );
    const store = new EventStore(runDir, runId, db, options.now ?? (() => new Date()));
    store.repairMirrors();
    return store;
  }

  /** Commits the events in one transaction, then mirrors them. Returns them with their seq. */
  append(events: readonly NewEvent[]): StoredEvent[] {
    if (events.length === 0) return [];
    const rows = this.appendMany(events, this.now().toISOString());
    if (rows.some((r) => r.seq === KILL_AFTER_COMMIT)) process.kill(process.pid, "SIGKILL");
    this.writeMirrors(rows);
    return rows.map((row) => ({ ...row, data: JSON.parse(row.data) }) as StoredEvent);
  }

  /** Every event, decoded and validated, in seq order. */
  readAll(): StoredEvent[] {
    return this.rows("SELECT seq, type, run_id, job_id, ts, data FROM events ORDER BY seq").map((row) =>
      decodeEvent({ ...row, data: JSON.parse(row.data) }),
    );
  }

  lastSeq(): number {
    const row = this.db.prepare("SELECT MAX(seq) AS seq FROM events").get() as { seq: number | null };
    return row.seq ?? 0;
  }

  close(): void {
    for (const fd of this.jobFds.values()) closeSync(fd);
    this.jobFds.clear();
    if (this.runFd !== undefined) closeSync(this.runFd);
    this.runFd = undefined;
    if (this.db.open) this.db.close();
  }

  private rows(sql: string, ...params: unknown[]): Row[] {
    return this.db.prepare(sql).all(...params) as Row[];
  }

  /**
   * Appends to the mirrors through descriptors kept open (opening a file per event is what would
   * cost most): the run mirror's for the store's life, a job's until its attempt finishes.
   */
  private writeMirrors(rows: readonly Row[]): void {
    writeFully(this.runMirrorFd(), rows.map(mirrorLine).join(""));
    const byJob = new Map<string, string>();
    for (const row of rows) if (row.job_id !== null) byJob.set(row.job_id, (byJob.get(row.job_id) ?? "") + mirrorLine(row));
    for (const [jobId, text] of byJob) {
      let fd = this.jobFds.get(jobId);
      if (fd === undefined) {
        mkdirSync(join(this.runDir, "jobs", jobId), { recursive: true });
        fd = openSync(jobMirrorPath(this.runDir, jobId), "a");
        this.jobFds.set(jobId, fd);
      }
      writeFully(fd, text);
    }
    for (const row of rows) {
      if (row.type !== "JobFinished" || row.job_id === null) continue;
      closeSync(this.jobFds.get(row.job_id)!);
      this.jobFds.delete(row.job_id);
    }
  }

  private runMirrorFd(): number {
    this.runFd ??= openSync(join(this.runDir, RUN_MIRROR), "a");
    return this.runFd;
  }

  /** Brings every mirror level with SQLite: drops a torn last line, appends what is missing. */
  private repairMirrors(): void {
    repairMirror(join(this.runDir, RUN_MIRROR), () => this.rows("SELECT seq, type, run_id, job_id, ts, data FROM events ORDER BY seq"), this.lastSeq());
    const jobs = this.db.prepare("SELECT job_id, MAX(seq) AS seq FROM events WHERE job_id IS NOT NULL GROUP BY job_id").all() as { job_id: string; seq: number }[];
    for (const { job_id: jobId, seq } of jobs) {
      mkdirSync(join(this.runDir, "jobs", jobId), { recursive: true });
      repairMirror(jobMirrorPath(this.runDir, jobId), () => this.rows("SELECT seq, type, run_id, job_id, ts, data FROM events WHERE job_id = ? ORDER BY seq", jobId), seq);
    }
  }
}

/**
 * The mirror's complete lines, the seq of the last one, whether a torn (unterminated) last line
 * was dropped, and whether the last line is a mirror line at all.
 */
function mirrorState(path: string): { text: string; lastSeq: number; torn: boolean; valid: boolean } {
  if (!existsSync(path)) return { text: "", lastSeq: 0, torn: false, valid: true };
  const raw = readFileSync(path, "utf8");
  const text = raw.endsWith("\n") || raw === "" ? raw : raw.slice(0, raw.lastIndexOf("\n") + 1);
  const torn = text !== raw;
  const lastLine = text.slice(text.lastIndexOf("\n", text.length - 2) + 1, -1);
  if (lastLine === "") return { text, lastSeq: 0, torn, valid: text === "" };
  const match = /^\{"seq":(\d+),/.exec(lastLine);
  return { text, lastSeq: match ? Number(match[1]) : -1, torn, valid: match !== null };
}

function repairMirror(path: string, rows: () => Row[], lastCommitted: number): void {
  const state = mirrorState(path);
  if (state.valid && !state.torn && state.lastSeq === lastCommitted) return;
  const all = rows();
  if (!state.valid || state.lastSeq > lastCommitted) {
    writeFileSync(path, all.map(mirrorLine).join(""));
    return;
  }
  writeFileSync(path, state.text + all.filter((r) => r.seq > state.lastSeq).map(mirrorLine).join(""));
}

/** Run directories under a runs root that hold an event log. */
export function runDirectoriesWithLogs(runsRoot: string): string[] {
  if (!existsSync(runsRoot)) return [];
  return readdirSync(runsRoot, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(runsRoot, d.name, EVENTS_DB)))
    .map((d) => d.name);
}

export interface RunPeek {
  readonly runId: string;
  readonly configHash: string;
  /** Whether the latest invocation ended with RunFinished (not crashed, not interrupted). */
  readonly finished: boolean;
}

/** A cheap read-only look at a run's log, for choosing which run to resume. */
export function peekRun(runDir: string): RunPeek | null {
  const path = join(runDir, EVENTS_DB);
  if (!existsSync(path)) return null;
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const started = db.prepare("SELECT run_id, data FROM events WHERE type = 'RunStarted' ORDER BY seq DESC LIMIT 1").get() as { run_id: string; data: string } | undefined;
    if (started === undefined) return null;
    const last = db.prepare("SELECT type FROM events WHERE job_id IS NULL ORDER BY seq DESC LIMIT 1").get() as { type: string };
    return { runId: started.run_id, configHash: String((JSON.parse(started.data) as { config_hash: string }).config_hash), finished: last.type === "RunFinished" };
  } finally {
    db.close();
  }
}
