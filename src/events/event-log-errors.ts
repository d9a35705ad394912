/**
 * What can go wrong with a run's event log, as typed errors. Each carries one line a user can act
 * on; the CLI prints it and exits 2, never a stack trace.
 */
import { hostname } from "node:os";
import { dirname } from "node:path";
import * as Data from "effect/Data";

/** Another process writes this run directory (one writer per run dir). */
export class RunLockedError extends Data.TaggedError("RunLockedError")<{
  readonly runDir: string;
  readonly pid: number;
  readonly host: string;
  readonly startedAt: string;
  readonly command: string;
}> {
  override get message(): string {
    const held = `${this.runDir} is being written by pid ${this.pid} on ${this.host} (${this.command}, started ${this.startedAt}); `;
    if (this.host !== hostname()) {
      // A process on another machine cannot be checked from here, so its lock is never taken over silently.
      return `${held}wait for it to finish; if that process is gone, remove its lock with: sqlite3 ${this.runDir}/events.db 'DELETE FROM writer'`;
    }
    return `${held}wait for it to finish or stop it (a lock left by a killed process is taken over automatically)`;
  }
}

/** An append named a stream version that is no longer current: someone else appended first. */
export class WrongExpectedVersionError extends Data.TaggedError("WrongExpectedVersionError")<{
  readonly stream: string;
  readonly expected: number;
  readonly actual: number;
}> {
  override get message(): string {
    return `stream ${this.stream}: expected version ${this.expected}, found ${this.actual} (another writer appended to it)`;
  }
}

/** The log cannot be written: disk full, read-only, permission denied, I/O error. */
export class EventLogWriteError extends Data.TaggedError("EventLogWriteError")<{ readonly path: string; readonly code: string; readonly problem: string }> {
  override get message(): string {
    return `cannot write the event log ${this.path}: ${this.problem}`;
  }
}

/** The log cannot be read: not a database, damaged, or from a newer trace-bench. */
export class EventLogCorruptError extends Data.TaggedError("EventLogCorruptError")<{ readonly path: string; readonly problem: string }> {
  override get message(): string {
    return `${this.path}: ${this.problem}`;
  }
}

/**
 * The run directory's `events.db` is gone but its mirror `events.jsonl` still holds the run: the
 * only copy of its history, which a writer starting a fresh log would overwrite.
 */
export class EventLogLostError extends Data.TaggedError("EventLogLostError")<{ readonly runDir: string }> {
  override get message(): string {
    return `${this.runDir}: events.db is missing but events.jsonl holds the run's events; nothing was written: rebuild the log from it with 'trace-bench repair ${this.runDir}'`;
  }
}

/** `trace-bench repair` cannot rebuild a run's log: nothing was written. */
export class LogRepairError extends Data.TaggedError("LogRepairError")<{ readonly runDir: string; readonly problem: string }> {
  override get message(): string {
    return `cannot repair ${this.runDir}: ${this.problem}; nothing was written`;
  }
}

/** An event that does not belong where it is appended (a job event without a job id, ...): a bug. */
export class InvalidAppendError extends Data.TaggedError("InvalidAppendError")<{ readonly problem: string }> {
  override get message(): string {
    return this.problem;
  }
}

/** The fix for a log whose content is damaged: its mirror holds every event it had. */
export const damagedLogFix = (path: string) =>
  `restore it from a backup, or move it away (with its -wal and -shm files) and rebuild it from its mirror with 'trace-bench repair ${dirname(path)}'`;

const WRITE_PROBLEMS: Readonly<Record<string, string>> = {
  ENOSPC: "the disk is full; free space and run the same command again to resume",
  SQLITE_FULL: "the disk is full; free space and run the same command again to resume",
  EROFS: "the file system is read-only; use a writable --runs-dir",
  SQLITE_READONLY: "the run directory is read-only; make it writable or use another --runs-dir",
  EACCES: "permission denied; make the run directory writable or use another --runs-dir",
  EPERM: "permission denied; make the run directory writable or use another --runs-dir",
  SQLITE_CANTOPEN: "cannot create or open the file; check that the runs dir is a writable directory",
  ENOTDIR: "a path component is a file, not a directory; pass a directory as --runs-dir",
  SQLITE_IOERR: "an I/O error; check the disk, then run the same command again to resume",
  EIO: "an I/O error; check the disk, then run the same command again to resume",
};

/** Maps an error thrown by SQLite or the file system to a typed log error, or returns it unchanged. */
export function eventLogFailure(error: unknown, path: string): unknown {
  if (typeof (error as { _tag?: unknown } | null)?._tag === "string") return error; // already typed
  if (error instanceof Error && error.name === "EventDecodeError") {
    return new EventLogCorruptError({ path, problem: `${error.message}; the log was changed outside trace-bench or by a newer version` });
  }
  const code = String((error as { code?: unknown } | null)?.code ?? "");
  const base = code.replace(/^(SQLITE_[A-Z]+)_.*$/, "$1");
  if (base === "SQLITE_CORRUPT" || base === "SQLITE_NOTADB") {
    return new EventLogCorruptError({ path, problem: `not a readable event log (the database file is damaged or not SQLite); ${damagedLogFix(path)}` });
  }
  const problem = WRITE_PROBLEMS[code] ?? WRITE_PROBLEMS[base];
  if (problem !== undefined) return new EventLogWriteError({ path, code, problem });
  return error;
}
