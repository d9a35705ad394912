import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { EventLogCorruptError, eventLogFailure, EventLogWriteError, RunLockedError } from "../../../src/events/event-log-errors.js";

const withCode = (code: string) => Object.assign(new Error(`${code}: boom`), { code });

describe("eventLogFailure: what the file system or SQLite said, as one line a user can act on", () => {
  it.each([
    ["ENOSPC", /the disk is full; free space and run the same command again to resume/],
    ["SQLITE_FULL", /the disk is full/],
    ["EROFS", /the file system is read-only; use a writable --runs-dir/],
    ["SQLITE_READONLY", /the run directory is read-only/],
    ["SQLITE_READONLY_DBMOVED", /the run directory is read-only/],
    ["EACCES", /permission denied/],
    ["SQLITE_IOERR_WRITE", /an I\/O error/],
  ])("%s is a write error", (code, message) => {
    const error = eventLogFailure(withCode(code), "runs/r/events.db");
    expect(error).toBeInstanceOf(EventLogWriteError);
    expect((error as EventLogWriteError).message).toMatch(/^cannot write the event log runs\/r\/events\.db: /);
    expect((error as EventLogWriteError).message).toMatch(message);
  });

  it("a damaged or foreign file is a corrupt log, not a write error", () => {
    for (const code of ["SQLITE_CORRUPT", "SQLITE_NOTADB"]) expect(eventLogFailure(withCode(code), "x/events.db")).toBeInstanceOf(EventLogCorruptError);
  });

  it("typed errors pass through, and anything unknown is left as it is (a bug, not the user's to fix)", () => {
    const locked = new RunLockedError({ runDir: "r", pid: 1, host: "h", startedAt: "t", command: "c" });
    expect(eventLogFailure(locked, "p")).toBe(locked);
    const other = new TypeError("x is undefined");
    expect(eventLogFailure(other, "p")).toBe(other);
  });
});

describe("RunLockedError", () => {
  it("names the holder, and says how to clear a lock held from another machine (which is never taken over)", () => {
    const here = new RunLockedError({ runDir: "runs/r", pid: 7, host: hostname(), startedAt: "t", command: "trace-bench run" });
    expect(here.message).toMatch(/^runs\/r is being written by pid 7 on .* \(trace-bench run, started t\); wait for it to finish or stop it/);
    const there = new RunLockedError({ runDir: "runs/r", pid: 7, host: "elsewhere.invalid", startedAt: "t", command: "trace-bench run" });
    expect(there.message).toMatch(/on elsewhere\.invalid .*if that process is gone, remove its lock with: sqlite3 runs\/r\/events\.db 'DELETE FROM writer'$/);
  });
});
