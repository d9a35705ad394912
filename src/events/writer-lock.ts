/**
 * One writing process per run directory. The lock is a row in the log's own database, taken in
 * an IMMEDIATE transaction, so two processes racing for it cannot both win. A row left by a
 * process that no longer exists (killed, crashed) is taken over without asking: a process is
 * the holder only while its pid is alive with the same start time (pids are reused).
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import type Database from "better-sqlite3";
import { RunLockedError } from "./event-log-errors.js";
import { immediateTransaction } from "./immediate-transaction.js";

export interface WriterIdentity {
  readonly pid: number;
  readonly host: string;
  /** The process's start time as the kernel reports it (Linux), to tell a reused pid apart. */
  readonly processStart: string | null;
}

interface LockRow {
  pid: number;
  host: string;
  process_start: string | null;
  started_at: string;
  command: string;
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot), or null where unknown. */
export function processStartOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

export function currentWriter(): WriterIdentity {
  return { pid: process.pid, host: hostname(), processStart: processStartOf(process.pid) };
}

function isAlive(holder: LockRow): boolean {
  if (holder.host !== hostname()) return true; // another machine's process: nothing here can tell
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const start = processStartOf(holder.pid);
  return holder.process_start === null || start === null || start === holder.process_start;
}

/** Takes the run directory's writer lock, or throws `RunLockedError` naming the live holder. */
export function acquireWriterLock(db: Database.Database, runDir: string, me: WriterIdentity, command: string, now: Date): void {
  immediateTransaction(db, () => {
    const holder = db.prepare("SELECT pid, host, process_start, started_at, command FROM writer WHERE id = 1").get() as LockRow | undefined;
    if (holder !== undefined && isAlive(holder)) {
      throw new RunLockedError({ runDir, pid: holder.pid, host: holder.host, startedAt: holder.started_at, command: holder.command });
    }
    db.prepare("INSERT OR REPLACE INTO writer (id, pid, host, process_start, started_at, command) VALUES (1, ?, ?, ?, ?, ?)").run(
      me.pid,
      me.host,
      me.processStart,
      now.toISOString(),
      command,
    );
  });
}

export function releaseWriterLock(db: Database.Database, me: WriterIdentity): void {
  db.prepare("DELETE FROM writer WHERE id = 1 AND pid = ? AND host = ?").run(me.pid, me.host);
}

/** The live process holding a log's writer lock, read without taking it; null when none (or a dead holder's row). */
export function liveWriterOf(db: Database.Database): { pid: number; host: string; processStart: string | null; startedAt: string; command: string } | null {
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'writer'").get() === undefined) return null;
  const holder = db.prepare("SELECT pid, host, process_start, started_at, command FROM writer WHERE id = 1").get() as LockRow | undefined;
  if (holder === undefined || !isAlive(holder)) return null;
  return { pid: holder.pid, host: holder.host, processStart: holder.process_start, startedAt: holder.started_at, command: holder.command };
}
