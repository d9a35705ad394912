/**
 * The jsonl mirrors of the log, as a subscriber: `<run_dir>/events.jsonl` holds every event and
 * `jobs/<job_id>/events.jsonl` each job's, one line per event, the same bytes the log stores.
 * A mirror's last line is the position it reflects.
 *
 * On open (and after any failed write) every mirror is checked against the log, byte for byte,
 * and rewritten where it differs: a torn last line, a lagging tail, a corrupt or duplicated line
 * in the middle. Live events are appended through descriptors kept open (opening a file per event
 * is what would cost most).
 */
import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Subscriber } from "./event-bus.js";
import type { StoredEvent } from "./event-schema.js";
import { mirrorLine, payloadOf, type EventRow, type LinePieces } from "./log-database.js";
import { checkedJobId } from "./safe-id.js";
import { childPath } from "../fs/child-path.js";
import { readFileHead, utf8Of } from "../fs/file-head.js";
import { StreamedReconcile } from "./streamed-reconcile.js";
import { writeFully } from "../fs/write-fully.js";

export const RUN_MIRROR = "events.jsonl";

export function jobMirrorPath(runDir: string, jobId: string): string {
  return childPath(runDir, `jobs/${checkedJobId(jobId)}/events.jsonl`);
}

const eventLine = (event: StoredEvent) => mirrorLine({ ...event, data: payloadOf(event) });

/** What the file at `path` holds, up to `maxBytes` (a view valid until the next read); null if there is none. */
function readIfPresent(path: string, maxBytes: number): Buffer | null {
  try {
    return readFileHead(path, maxBytes);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/**
 * Makes the file at `path` hold exactly `expected`: appends a missing tail, else rewrites it.
 * A missing file's folder is created (a job folder someone removed); one that exists is not
 * asked for (every mirror exists when a run reopens, and replay reconciles thousands).
 */
function reconcile(path: string, expected: Buffer): void {
  // One byte more than expected tells a longer file from an equal one.
  const present = readIfPresent(path, expected.length + 1);
  if (present === null) mkdirSync(dirname(path), { recursive: true });
  const actual = present ?? Buffer.alloc(0);
  if (actual.equals(expected)) return;
  if (actual.length < expected.length && expected.subarray(0, actual.length).equals(actual)) return appendTo(path, expected.subarray(actual.length));
  const fd = openSync(path, "w");
  try {
    writeFully(fd, expected);
  } finally {
    closeSync(fd);
  }
}

function appendTo(path: string, bytes: Uint8Array): void {
  const fd = openSync(path, "a");
  try {
    writeFully(fd, bytes);
  } finally {
    closeSync(fd);
  }
}

export interface MirrorSource {
  /** Every committed row, in seq order. */
  rowsAfter(afterSeq: number): EventRow[];
}

export class MirrorWriter implements Subscriber {
  readonly name = "mirrors";
  private runFd: number | undefined;
  private readonly jobFds = new Map<string, number>();

  constructor(
    readonly runDir: string,
    private readonly log: MirrorSource,
  ) {}

  /** Brings every mirror level with the log. */
  catchUp(): void {
    this.catchUpFrom(this.log.rowsAfter(0));
  }

  /**
   * `catchUp` from `rows`, every committed row in seq order: a writer that opens the run reads
   * the log once, folding its state from the same rows (`EventStore.scan`).
   */
  catchUpFrom(rows: Iterable<EventRow>): void {
    const catchUp = this.startCatchUp();
    for (const row of rows) catchUp.add(row);
    catchUp.finish();
  }

  /** A catch-up fed one row at a time (`add` each committed row in seq order, then `finish`). */
  startCatchUp(lastPositions?: ReadonlyMap<string, number>): MirrorCatchUp {
    this.closeFds();
    return new MirrorCatchUp(this.runDir, lastPositions);
  }

  /** Appends newly committed events. */
  handle(events: readonly StoredEvent[]): void {
    const lines = events.map(eventLine);
    writeFully(this.runMirrorFd(), Buffer.from(lines.join(""), "utf8"));
    const byJob = new Map<string, string>();
    events.forEach((event, i) => {
      if (event.job_id !== null) byJob.set(event.job_id, (byJob.get(event.job_id) ?? "") + lines[i]);
    });
    for (const [jobId, text] of byJob) writeFully(this.jobFd(jobId), Buffer.from(text, "utf8"));
    // A job's descriptor is kept only while its attempt runs.
    for (const event of events) {
      if (event.type !== "JobFinished" || event.job_id === null) continue;
      const fd = this.jobFds.get(event.job_id);
      if (fd !== undefined) closeSync(fd);
      this.jobFds.delete(event.job_id);
    }
  }

  close(): void {
    this.closeFds();
  }

  private closeFds(): void {
    for (const fd of this.jobFds.values()) closeSync(fd);
    this.jobFds.clear();
    if (this.runFd !== undefined) closeSync(this.runFd);
    this.runFd = undefined;
  }

  private runMirrorFd(): number {
    this.runFd ??= openSync(join(this.runDir, RUN_MIRROR), "a");
    return this.runFd;
  }

  private jobFd(jobId: string): number {
    let fd = this.jobFds.get(jobId);
    if (fd === undefined) {
      mkdirSync(join(this.runDir, "jobs", checkedJobId(jobId)), { recursive: true });
      fd = openSync(jobMirrorPath(this.runDir, jobId), "a");
      this.jobFds.set(jobId, fd);
    }
    return fd;
  }
}

/**
 * Checks every mirror against the log from one read of its rows, holding no more of the log than
 * the jobs still being read: the run's mirror is compared with its file as the rows come
 * (`StreamedReconcile`), and a job's mirror once its last row was read (`lastPositions` of the
 * streams, read at the start; without them, every job's at `finish`), its later rows (committed
 * by a writer meanwhile: past that position) appended to it. Which jobs are settled is told by
 * the positions, not remembered (a set of every job id was a few MB of a 50,000-job replay). A job's mirror is touched only once its rows up to that
 * position were read, and a run mirror that differs is replaced only at `finish`: a log that
 * cannot be read to its end leaves the mirrors no worse than they were.
 */
export class MirrorCatchUp {
  private readonly run: StreamedReconcile;
  private readonly jobLines = new Map<string, string[]>();

  constructor(
    private readonly runDir: string,
    private readonly lastPositions?: ReadonlyMap<string, number>,
  ) {
    this.run = new StreamedReconcile(join(runDir, RUN_MIRROR));
  }

  add(row: EventRow): void {
    this.addLine(mirrorLine(row), row);
  }

  /** `add` of a row whose mirror line is at hand (`EventStore.scanLines`). */
  addLine(line: string | LinePieces, row: Pick<EventRow, "job_id" | "stream" | "position">): void {
    if (typeof line !== "string") {
      // A run-level line too big to be handed over whole (a start): it goes to the run's mirror only.
      if (row.job_id !== null) throw new Error(`a job's mirror line must come whole (stream ${row.stream} position ${row.position})`);
      for (const piece of line.pieces()) this.run.add(piece);
      return;
    }
    this.run.add(line);
    if (row.job_id === null) return;
    const last = this.lastPositions?.get(row.stream);
    // A row committed after the positions were read (a writer running while this reads): its job's
    // mirror was settled at its last position then, level with the rows before it.
    if (last !== undefined && row.position > last) return appendTo(jobMirrorPath(this.runDir, row.job_id), Buffer.from(line, "utf8"));
    let lines = this.jobLines.get(row.job_id);
    if (lines === undefined) this.jobLines.set(row.job_id, (lines = []));
    lines.push(line);
    if (last === row.position) this.settleJob(row.job_id, lines);
  }

  finish(): void {
    this.run.finish();
    for (const [jobId, lines] of this.jobLines) this.settleJob(jobId, lines);
  }

  /** Stops without settling what is left (a mirror write failed): the files keep what they hold. */
  abandon(): void {
    this.run.abandon();
    this.jobLines.clear();
  }

  private settleJob(jobId: string, lines: string[]): void {
    reconcile(jobMirrorPath(this.runDir, jobId), utf8Of(lines));
    this.jobLines.delete(jobId);
  }
}
