/**
 * Writes the projections of a run state into its directory: only files whose content changed,
 * each atomically (temp file + rename), and removes generated files the state no longer produces
 * (a re-run job whose latest attempt failed before training has no state files).
 *
 * Writes are synchronous on purpose: many small files are written much faster in one thread than
 * spread over libuv's pool (docs/performance.md: ledger, 99b2a8b).
 */
import { createHash, hash } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { jobFiles, type FileContent } from "./projections/job-files.js";
import type { JobRenderContext } from "./projections/results-table.js";
import { RUN_FILES, runFiles } from "./projections/run-files.js";
import { tbEventFilePath } from "./projections/tensorboard-file.js";
import { textOf, TextPieces } from "./projections/text-pieces.js";
import type { RunDirListing } from "./run-dir-listing.js";
import type { JobView, RunState } from "./run-state.js";
import { checkedJobId } from "./safe-id.js";
import { childPath } from "../fs/child-path.js";
import { emptyFolder } from "../fs/empty-folder.js";
import { copyPrefix, matchingPrefix } from "../fs/file-prefix.js";
import { openIfPresent } from "../fs/open-if-present.js";
import { writeFully } from "../fs/write-fully.js";
import { fileHolds, utf8Of } from "../fs/file-head.js";

/** The files a job's folder may hold besides its event mirror and TensorBoard event file (named after the job: `tbEventFilePath`), by path within the folder. */
export const JOB_GENERATED = [
  "job_meta.json",
  "results.json",
  "stdout.log",
  ...["initial", "best", "final"].flatMap((w) => [`artifacts/${w}_state.json`, `artifacts/${w}_state.yaml`]),
  "artifacts/state_history.jsonl",
];

/** Where projection temp files live; cleared when a writer opens, so a kill -9 mid-write leaves no trace. */
export const PROJECTION_TEMP_DIR = ".tmp";

/** Every projection file of the run: run-level files and each job's files. */
export function renderProjections(state: RunState): Map<string, FileContent> {
  const files = new Map<string, FileContent>();
  for (const [path, content] of runFiles(state)) files.set(path, textOf(content));
  for (const job of state.orderedJobs()) for (const [path, content] of jobFiles(state, job)) files.set(path, content);
  return files;
}

/** What a job's files depend on besides its own events: the run's identity and LLM columns. */
const contextKey = (context: JobRenderContext): string => `${context.runId}|${JSON.stringify(context.started?.llm ?? null)}`;

/** Log positions are below this, so that a render key holds a context's number above them. */
const SEQ_SPAN = 2 ** 32;

/**
 * What a remembered file holds, as a digest: a big run's manifest, files index and results
 * table are megabytes each, and keeping their text would make memory grow with the matrix.
 */
const digestOf = (content: string | Buffer) => hash("sha1", content, "base64");

/**
 * Pieces are encoded into this reused buffer and written when it fills: gathered as a string
 * (64 K characters at a time), a big file's pending text outlived the small young generation
 * of the thread that wrote it and was promoted with every write (a 10,000-job run's last files).
 */
const pieceBuffer = Buffer.allocUnsafe(1 << 16);
/** A piece that could take more than this many bytes is written on its own (UTF-8: at most 3 bytes a UTF-16 unit). */
const MAX_BUFFERED_PIECE = pieceBuffer.length / 3;

/** Encodes `pieces` into `pieceBuffer` and hands `take` each filled part, in order. */
function eachEncodedPart(pieces: Iterable<string>, take: (bytes: Uint8Array) => void): void {
  let used = 0;
  const flush = () => {
    if (used > 0) take(pieceBuffer.subarray(0, used));
    used = 0;
  };
  for (const piece of pieces) {
    if (piece.length > MAX_BUFFERED_PIECE) {
      flush();
      take(Buffer.from(piece, "utf8"));
      continue;
    }
    if (used + piece.length * 3 > pieceBuffer.length) flush();
    used += pieceBuffer.write(piece, used, "utf8");
  }
  flush();
}

/** What a file holds is read into this reused buffer to be compared. */
const fileBuffer = Buffer.allocUnsafe(pieceBuffer.length);

/**
 * Makes the file at `path` hold `pieces`, compared with them as they are encoded: one that already
 * holds them is left alone; otherwise they go to a new file at `temp` (after a copy of the file's
 * matching start), for the caller to rename over it. One pass either way: a replay of an intact
 * run wrote each large file to a temp file and read both back to compare their digests. Returns
 * the digest of the pieces and whether `temp` was written.
 */
function reconcilePieces(path: string, temp: string, pieces: Iterable<string>): { readonly digest: string; readonly wroteTemp: boolean } {
  const digest = createHash("sha1");
  const fd = openIfPresent(path, "r");
  let tempFd: number | null = fd === null ? openSync(temp, "w") : null;
  let matched = 0;
  try {
    eachEncodedPart(pieces, (bytes) => {
      digest.update(bytes);
      if (tempFd === null) {
        const { length } = matchingPrefix(fd!, matched, bytes, fileBuffer);
        matched += length;
        if (length === bytes.length) return;
        tempFd = copyPrefix(fd!, matched, temp, fileBuffer);
        bytes = bytes.subarray(length);
      }
      writeFully(tempFd, bytes);
    });
    // All matched: the file must also end there.
    if (tempFd === null && readSync(fd!, fileBuffer, 0, 1, matched) !== 0) tempFd = copyPrefix(fd!, matched, temp, fileBuffer);
    return { digest: digest.digest("base64"), wroteTemp: tempFd !== null };
  } finally {
    try {
      if (tempFd !== null) closeSync(tempFd);
    } finally {
      if (fd !== null) closeSync(fd);
    }
  }
}

/**
 * `write` fills `temp`, which then replaces `full`. A write that fails (a full disk) removes its
 * temp file: the run stops with the log intact, and no empty or partial file is left behind.
 */
function replaceThroughTemp(temp: string, full: string, write: () => void): void {
  try {
    write();
    renameSync(temp, full);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** Writes `pieces` to a new file at `path` as they come; returns the digest of what it wrote. */
function writePieces(path: string, pieces: Iterable<string>): string {
  const digest = createHash("sha1");
  const fd = openSync(path, "w");
  try {
    eachEncodedPart(pieces, (bytes) => {
      writeFully(fd, bytes);
      digest.update(bytes);
    });
  } finally {
    closeSync(fd);
  }
  return digest.digest("base64");
}

export class ProjectionWriter {
  /** A digest of what is on disk at each path, as far as this writer knows (it wrote it, or read it). */
  private readonly written = new Map<string, string>();
  /** Folders made, besides jobs' own. */
  private readonly dirs = new Set<string>();
  /** Jobs whose folders were made (or listed), by id: the ids the views hold, no path strings per job. */
  private readonly jobDirs = new Set<string>();
  /**
   * Per job, the state it was last rendered from, as one number (its last event's seq, plus the
   * number of the run context times `SEQ_SPAN`): a job whose events and context did not change is
   * not re-rendered (a number per job takes much less of a big run's heap than a string did;
   * docs/performance.md: ledger, aacb89c).
   */
  private readonly renderedAt = new Map<string, number>();
  /** The run contexts jobs were rendered in, numbered in the order first seen (a run has one or two). */
  private readonly contexts = new Map<string, number>();
  /** The number of each run start's context, by the run state's `started` (not kept alive by this). */
  private readonly contextOfStart = new WeakMap<object, { readonly runId: string; readonly number: number }>();
  private readonly tempDir: string;
  private tempCounter = 0;

  /**
   * @param fresh nothing on disk needs comparing before writing: a new run holds no projections yet.
   * @param listed what the directory held before this writer wrote (replay lists it): folders it
   *   held are not created again, and files it did not hold are neither compared nor looked for
   *   to remove.
   * @param tempName a folder of its own under the temp folder, for a writer beside another (a
   *   replay's helper thread), which it clears instead of the whole temp folder.
   */
  constructor(
    readonly runDir: string,
    private readonly fresh = false,
    private readonly listed?: RunDirListing,
    tempName?: string,
  ) {
    this.tempDir = tempName === undefined ? join(runDir, PROJECTION_TEMP_DIR) : join(runDir, PROJECTION_TEMP_DIR, tempName);
    emptyFolder(this.tempDir);
    this.dirs.add(this.tempDir);
  }

  /** The whole projection: writes what changed and prunes what is no longer produced. */
  writeAll(state: RunState): void {
    const run = runFiles(state);
    for (const [path, content] of run) this.write(path, content);
    if (!run.has(RUN_FILES.leaderboard_csv)) this.remove(RUN_FILES.leaderboard_csv);
    for (const job of state.orderedJobs()) if (!this.isCurrent(state, job)) this.rewriteJob(state, job);
  }

  /** Whether the job's files on disk were rendered from what `state` holds of it. */
  isCurrent(state: RunState, job: JobView): boolean {
    return this.renderedAt.get(job.job_id) === this.renderKey(state, job);
  }

  /**
   * A job's files rendered again (from `context`, the run as its last event leaves it or as the
   * whole log does): written, and the generated files it no longer produces removed.
   */
  rewriteJob(context: JobRenderContext, job: JobView): void {
    this.ensureJobDirs(job);
    const files = jobFiles(context, job);
    for (const [path, content] of files) this.write(path, content, false, false);
    for (const name of JOB_GENERATED) if (!files.has(`jobs/${job.job_id}/${name}`)) this.remove(`jobs/${job.job_id}/${name}`);
    const tb = tbEventFilePath(job.spec);
    if (!files.has(tb)) this.remove(tb);
    this.renderedAt.set(job.job_id, this.renderKey(context, job));
  }

  /** Another writer (a replay's helper thread) writes the job's files as `context` renders them. */
  renderedElsewhere(context: JobRenderContext, job: JobView): void {
    this.renderedAt.set(job.job_id, this.renderKey(context, job));
  }

  /** Removes this writer's temp folder (a helper's own, once it is done). */
  removeTempDir(): void {
    rmSync(this.tempDir, { recursive: true, force: true });
  }

  /**
   * The files on disk of the jobs `unchanged` holds for were rendered from what `state` holds of
   * them (the log position they reflect was recorded, and none of these jobs changed after it):
   * none is rendered again until its events or the run's LLM columns change. Reopening a finished
   * run compared every job's files otherwise (docs/performance.md: ledger, c942a0f).
   */
  assumeCurrent(state: RunState, unchanged: (job: JobView) => boolean = () => true): void {
    for (const job of state.jobs.values()) if (unchanged(job)) this.renderedAt.set(job.job_id, this.renderKey(state, job));
  }

  /** One job's files: new content of a job that just finished. */
  writeJob(state: RunState, job: JobView): void {
    this.ensureJobDirs(job);
    for (const [path, content] of jobFiles(state, job)) this.write(path, content, true, false);
    this.renderedAt.set(job.job_id, this.renderKey(state, job));
  }

  /** Run-level files (all, or `only` these). */
  writeRunFiles(state: RunState, only?: Parameters<typeof runFiles>[1]): void {
    for (const [path, content] of runFiles(state, only)) this.write(path, content);
  }

  /** What a job's files are rendered from (see `renderedAt`). */
  private renderKey(context: JobRenderContext, job: JobView): number {
    return this.contextNumber(context) * SEQ_SPAN + job.lastSeq;
  }

  /** The number of `context` in `contexts`, remembered by its run start (it is asked for once per job). */
  private contextNumber(context: JobRenderContext): number {
    const started = context.started;
    const known = started === null ? undefined : this.contextOfStart.get(started);
    if (known !== undefined && known.runId === context.runId) return known.number;
    const key = contextKey(context);
    let number = this.contexts.get(key);
    if (number === undefined) this.contexts.set(key, (number = this.contexts.size));
    if (started !== null) this.contextOfStart.set(started, { runId: context.runId, number });
    return number;
  }

  private ensureDir(dir: string): void {
    if (this.dirs.has(dir)) return;
    mkdirSync(dir, { recursive: true });
    this.dirs.add(dir);
  }

  /**
   * A job's folders: none that the listing saw (replay), else a recursive `mkdir` of each, which
   * is one system call for a new folder and two for one that exists, and never an exception (with
   * the absent-file check in `remove`, replay writes a run's projections faster; docs/performance.md:
   * ledger, 0e92b24).
   */
  private ensureJobDirs(job: JobView): void {
    if (this.jobDirs.has(job.job_id)) return;
    const dir = `jobs/${checkedJobId(job.job_id)}`;
    this.ensureDir(childPath(this.runDir, "jobs"));
    for (const folder of [dir, `${dir}/artifacts`, `${dir}/tb`]) {
      if (this.listed?.has(folder) !== true) mkdirSync(childPath(this.runDir, folder), { recursive: true });
    }
    this.jobDirs.add(job.job_id);
  }

  /**
   * @param isNew the content is known to differ from whatever is on disk.
   * @param remember keep a digest of the content to skip an unchanged rewrite later: run-level files, which
   *   are refreshed while jobs finish. A job's files are not kept (memory would grow with the
   *   matrix): `renderedAt` already says when they are current.
   */
  private write(path: string, content: FileContent | TextPieces, isNew = false, remember = true): void {
    if (content instanceof TextPieces) return this.writeLarge(path, content);
    // Bytes (TensorBoard event files) are job files, never remembered: compared with the disk only.
    if (typeof content !== "string") return this.writeBytes(path, content, isNew);
    const known = this.written.get(path);
    const digest = remember ? digestOf(content) : null;
    if (known !== undefined && known === digest) return;
    const full = childPath(this.runDir, path);
    if (known === undefined && !isNew && this.alreadyHolds(path, full, content)) {
      // Written by an earlier process (a resumed or replayed run) and still right.
      if (digest !== null) this.written.set(path, digest);
      return;
    }
    // A job's folders were made with it (`ensureJobDirs`): its files' folders are not remembered one by one.
    if (remember) this.ensureDir(dirname(full));
    const temp = childPath(this.tempDir, String(this.tempCounter++));
    replaceThroughTemp(temp, full, () => writeFileSync(temp, content));
    if (digest !== null) this.written.set(path, digest);
    else this.written.delete(path);
  }

  /**
   * A large run-level file, written to its temp file as it is rendered and hashed on the way; it
   * replaces the file on disk unless that already holds the same bytes.
   */
  private writeLarge(path: string, content: TextPieces): void {
    const full = childPath(this.runDir, path);
    this.ensureDir(dirname(full));
    const temp = childPath(this.tempDir, String(this.tempCounter++));
    const known = this.written.get(path);
    try {
      if (known === undefined && !this.fresh) {
        // Written by an earlier process (a resumed or replayed run): compared as it is rendered.
        const { digest, wroteTemp } = reconcilePieces(full, temp, content.pieces());
        if (wroteTemp) renameSync(temp, full);
        this.written.set(path, digest);
        return;
      }
      const digest = writePieces(temp, content.pieces());
      if (known === digest) rmSync(temp, { force: true });
      else renameSync(temp, full);
      this.written.set(path, digest);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
  }

  private writeBytes(path: string, content: Uint8Array, isNew: boolean): void {
    const full = childPath(this.runDir, path);
    if (!isNew && this.alreadyHolds(path, full, content)) return;
    // Only a job's files are bytes: TensorBoard event files, each in its run's folder under the job's tb/.
    mkdirSync(dirname(full), { recursive: true });
    const temp = childPath(this.tempDir, String(this.tempCounter++));
    replaceThroughTemp(temp, full, () => writeFileSync(temp, content));
  }

  /**
   * Whether the file at `path` holds `content` byte for byte (a decoded comparison would take a
   * corrupt byte sequence for the U+FFFD it decodes to). Reading and comparing a job's small file
   * costs less than writing it to a temp file and renaming it, so a replay of an intact run writes
   * nothing it need not (docs/performance.md: ledger, 34e4556).
   */
  private alreadyHolds(path: string, full: string, content: string | Uint8Array): boolean {
    if (this.fresh || !(this.listed !== undefined ? this.listed.hasFile(path) : existsSync(full))) return false;
    return fileHolds(full, typeof content === "string" ? utf8Of(content) : content);
  }

  private remove(path: string): void {
    const wrote = this.written.delete(path);
    if (!wrote && this.listed !== undefined && !this.listed.has(path)) return;
    const full = childPath(this.runDir, path);
    // Usually absent (a job without TensorBoard data): asking costs less than a failed removal.
    if (existsSync(full)) rmSync(full, { force: true });
  }
}
