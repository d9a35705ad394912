import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { hostname } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { EventLogCorruptError, RunLockedError, WrongExpectedVersionError } from "../../../src/events/event-log-errors.js";
import { EventReader, peekRun, readableRuns } from "../../../src/events/event-reader.js";
import { EventStore } from "../../../src/events/event-store.js";
import { mirrorLine } from "../../../src/events/log-database.js";
import { tempDir } from "../../support/cli.js";
import { appendEvents, finishedJob, RUN_ID, runStarted } from "../../support/events.js";

const require = createRequire(import.meta.url);
const stores: EventStore[] = [];
function open(dir: string): EventStore {
  const store = EventStore.open(dir, RUN_ID, { now: () => new Date("2026-01-01T00:00:00.000Z"), command: "test" });
  stores.push(store);
  return store;
}
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

describe("EventStore: streams and expected versions", () => {
  it("assigns global seqs and per-stream positions, and reads back decoded events", () => {
    const dir = tempDir();
    const store = open(dir);
    const stored = appendEvents(store, [runStarted(["a", "b"]), ...finishedJob("a")]);
    expect(stored.map((e) => e.seq)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
    expect(stored.map((e) => [e.stream, e.position])).toEqual([["run", 1], ...Array.from({ length: 10 }, (_, i) => ["job-a", i + 1])]);
    appendEvents(store, finishedJob("b"));
    const all = store.readAll();
    expect(all).toHaveLength(21);
    expect(all[0]).toMatchObject({ seq: 1, v: 2, stream: "run", position: 1, type: "RunStarted", run_id: RUN_ID, job_id: null, ts: "2026-01-01T00:00:00.000Z" });
    expect(all.at(-1)).toMatchObject({ type: "JobFinished", job_id: "b", stream: "job-b", position: 10 });
    expect([store.streamVersion("run"), store.streamVersion("job-a"), store.streamVersion("job-b"), store.streamVersion("job-c")]).toEqual([1, 10, 10, 0]);
  });

  it("refuses an append at a stale version and commits nothing of it", () => {
    const dir = tempDir();
    const store = open(dir);
    appendEvents(store, [runStarted(["a"]), ...finishedJob("a").slice(0, 2)]);
    const error = (() => {
      try {
        store.append("job-a", 0, finishedJob("a").slice(2, 4));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(WrongExpectedVersionError);
    expect(error).toMatchObject({ stream: "job-a", expected: 0, actual: 2 });
    expect(store.readAll()).toHaveLength(3);
    expect(store.append("job-a", 2, finishedJob("a").slice(2, 4)).map((e) => e.position)).toEqual([3, 4]);
  });

  it("an append is one transaction: a bad event leaves nothing behind", () => {
    const dir = tempDir();
    const store = open(dir);
    appendEvents(store, [runStarted(["a"])]);
    const bad = [...finishedJob("a").slice(0, 3), { type: "JobQueued", data: { attempt: 1, invocation: 1 } } as never];
    expect(() => store.append("job-a", 0, bad)).toThrow(/needs a job_id/);
    expect(() => store.append("run", 1, finishedJob("a").slice(0, 1))).toThrow(/appended to stream run/);
    expect(store.readAll()).toHaveLength(1);
  });

  it("the database itself refuses two events at one stream position", () => {
    const dir = tempDir();
    appendEvents(open(dir), [runStarted(["a"])]);
    const db = new Database(join(dir, "events.db"));
    try {
      expect(() => db.prepare("INSERT INTO events (v, stream, position, type, run_id, job_id, ts, data) VALUES (2, 'run', 1, 'RunFinished', 'x', NULL, 'now', '{}')").run()).toThrow(/UNIQUE/);
    } finally {
      db.close();
    }
  });
});

describe("EventStore: one writer per run directory", () => {
  it("a second writer is refused with the holder's pid and start time; after close the directory can be opened again", () => {
    const dir = tempDir();
    const first = open(dir);
    let error: unknown;
    try {
      open(dir);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RunLockedError);
    expect((error as RunLockedError).message).toMatch(new RegExp(`being written by pid ${process.pid} on .* \\(test, started 2026-01-01T00:00:00.000Z\\)`));
    expect(() => open(dir), "the refused open left the holder's lock in place").toThrow(RunLockedError);
    first.close();
    expect(() => open(dir)).not.toThrow();
  });

  it("a writer opening a log that another process holds and commits to all the time is refused by the lock, never by a busy database", async () => {
    const dir = tempDir();
    open(dir).close();
    // The holder: another process committing as fast as it can, as a running run's group commits do.
    const holder = spawn(process.execPath, [
      "-e",
      `const Database = require(${JSON.stringify(require.resolve("better-sqlite3"))});
       const db = new Database(${JSON.stringify(join(dir, "events.db"))});
       db.pragma("busy_timeout = 5000");
       db.prepare("INSERT INTO writer (id, pid, host, process_start, started_at, command) VALUES (1, ?, ?, NULL, '2026-01-01T00:00:00Z', 'trace-bench run')").run(process.pid, ${JSON.stringify(hostname())});
       const put = db.prepare("INSERT OR REPLACE INTO snapshots (name, seq, format, data) VALUES ('load', ?, 'x', 'x')");
       process.stdout.write("ready");
       for (let i = 0, end = Date.now() + 20000; Date.now() < end; i++) put.run(i);`,
    ]);
    try {
      await new Promise((resolve) => holder.stdout.once("data", resolve));
      const outcomes: string[] = [];
      // A count of tries, not a time: each waits on the busy database, longer on a loaded machine
      // (17 tries in 1.5 s once, in the full suite); the holder commits for longer than this takes.
      for (const end = Date.now() + 15000; outcomes.length <= 20 && Date.now() < end; ) {
        try {
          open(dir).close();
          outcomes.push("opened");
        } catch (error) {
          outcomes.push(error instanceof RunLockedError ? "locked" : String(error));
        }
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      expect(outcomes.length).toBeGreaterThan(20);
      expect(outcomes.filter((outcome) => outcome !== "locked")).toEqual([]);
    } finally {
      holder.kill();
    }
  });

  it("takes over a lock left by a process that no longer exists", () => {
    const dir = tempDir();
    open(dir).close();
    const db = new Database(join(dir, "events.db"));
    db.prepare("INSERT INTO writer (id, pid, host, process_start, started_at, command) VALUES (1, 999999999, ?, '1', '2020-01-01T00:00:00Z', 'trace-bench run')").run(hostname());
    db.close();
    expect(() => open(dir)).not.toThrow();
  });

  it("readers never need the lock", () => {
    const dir = tempDir();
    const store = open(dir);
    appendEvents(store, [runStarted(["a"]), ...finishedJob("a")]);
    const reader = EventReader.open(dir);
    try {
      expect(reader.readAfter(0)).toHaveLength(11);
      expect(reader.readAfter(9).map((e) => e.seq)).toEqual([10, 11]);
    } finally {
      reader.close();
    }
  });
});

describe("EventStore: logs written before streams, and logs that are not what they claim", () => {
  /** A schema-1 log as trace-bench wrote it before streams: no stream, position or v columns. */
  function legacyLog(dir: string): void {
    const db = new Database(join(dir, "events.db"));
    db.exec("CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, run_id TEXT NOT NULL, job_id TEXT, ts TEXT NOT NULL, data TEXT NOT NULL)");
    const insert = db.prepare("INSERT INTO events (type, run_id, job_id, ts, data) VALUES (?, ?, ?, 'then', ?)");
    for (const e of [runStarted(["a"]), ...finishedJob("a")]) insert.run(e.type, RUN_ID, e.job_id ?? null, JSON.stringify(e.data));
    db.close();
  }

  it("reads an old log as it is, and a writer migrates it and appends after it", () => {
    const dir = tempDir();
    legacyLog(dir);
    const reader = EventReader.open(dir);
    const before = reader.readAfter(0);
    reader.close();
    expect(before.map((e) => [e.v, e.stream, e.position]).slice(0, 3)).toEqual([[1, "run", 1], [1, "job-a", 1], [1, "job-a", 2]]);
    expect(peekRun(dir)).toEqual({ runId: RUN_ID, configHash: "0123456789abcdef", finished: false, firstStartedAt: "then" });
    const store = open(dir);
    expect(store.readAll()).toEqual(before);
    expect(store.streamVersion("job-a")).toBe(10);
    expect(appendEvents(store, [{ type: "RunFinished", data: { invocation: 1, counts: {}, not_run: {} } }])[0]).toMatchObject({ seq: 12, v: 2, stream: "run", position: 2 });
  });

  it("openExisting opens a started run's log (an old one migrated) with its run id, and refuses a file that is no log, leaving it as it is", () => {
    const old = tempDir();
    legacyLog(old);
    const migrated = EventStore.openExisting(old, { command: "test" })!;
    stores.push(migrated);
    expect(migrated.runId).toBe(RUN_ID);
    expect(migrated.streamVersion("job-a")).toBe(10);
    expect(migrated.readAll()[0]).toMatchObject({ v: 1, stream: "run", position: 1, type: "RunStarted" });
    // One writer at a time, as with open.
    expect(() => EventStore.openExisting(old, { command: "second" })).toThrow(RunLockedError);

    const foreign = tempDir();
    const db = new Database(join(foreign, "events.db"));
    db.exec("CREATE TABLE notes (text TEXT)");
    db.close();
    const before = readFileSync(join(foreign, "events.db"));
    expect(() => EventStore.openExisting(foreign)).toThrow(/events\.db: not a trace-bench event log .*nothing was changed/);
    expect(readFileSync(join(foreign, "events.db")).equals(before)).toBe(true);
    expect(readdirSync(foreign)).toEqual(["events.db"]);

    const empty = tempDir();
    expect(EventStore.openExisting(empty)).toBeNull();
    expect(readdirSync(empty)).toEqual([]); // no file: none is created
    const unstarted = tempDir();
    open(unstarted).close();
    expect(EventStore.openExisting(unstarted)).toBeNull(); // a log no run ever started in
  });

  it("opening a log at the current schema creates the tables it lacks (schema 2 gained some after it shipped)", () => {
    const dir = tempDir();
    appendEvents(open(dir), [runStarted(["a"])]);
    stores.splice(0)[0]!.close();
    const db = new Database(join(dir, "events.db"));
    db.exec("DROP TABLE snapshots; DROP TABLE contents");
    db.close();
    EventStore.openExisting(dir, { command: "test" })!.close();
    const check = new Database(join(dir, "events.db"), { readonly: true });
    const tables = check.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    check.close();
    expect(tables).toEqual(["contents", "events", "snapshots", "sqlite_sequence", "subscriber_positions", "writer"]);
  });

  it("refuses to decode an unknown event type or a payload that does not match its schema", () => {
    const dir = tempDir();
    appendEvents(open(dir), [runStarted(["a"])]);
    const db = new Database(join(dir, "events.db"));
    db.prepare("INSERT INTO events (v, stream, position, type, run_id, job_id, ts, data) VALUES (2, 'run', 2, 'FutureEvent', ?, NULL, 'now', '{}')").run(RUN_ID);
    db.close();
    expect(() => stores[0]!.readAll()).toThrow(EventLogCorruptError);
    expect(() => stores[0]!.readAll()).toThrow(/unknown event type 'FutureEvent'/);
  });

  it("a doctored job id is refused before it can become a path", () => {
    const dir = tempDir();
    appendEvents(open(dir), [runStarted(["a"])]);
    const db = new Database(join(dir, "events.db"));
    db.prepare(`INSERT INTO events (v, stream, position, type, run_id, job_id, ts, data) VALUES (2, 'job-../../victim', 1, 'JobQueued', ?, '../../victim', 'now', '{"attempt":1,"invocation":1}')`).run(RUN_ID);
    db.close();
    expect(() => stores[0]!.readAll()).toThrow(/job id "..\/..\/victim" is not a plain name/);
  });

  it("peekRun tells whether the latest invocation finished; readableRuns skips a damaged log with a warning", () => {
    const root = tempDir();
    const dir = join(root, "good");
    const store = open(dir);
    appendEvents(store, [runStarted(["a"])]);
    expect(peekRun(dir)).toEqual({ runId: RUN_ID, configHash: "0123456789abcdef", finished: false, firstStartedAt: "2026-01-01T00:00:00.000Z" });
    appendEvents(store, [{ type: "RunFinished", data: { invocation: 1, counts: {}, not_run: {} } }]);
    expect(peekRun(dir)?.finished).toBe(true);
    expect(peekRun(tempDir())).toBeNull();

    const bad = join(root, "bad");
    mkdirSync(bad);
    writeFileSync(join(bad, "events.db"), "this is not a database, just some bytes ".repeat(200));
    const { runs, warnings } = readableRuns(root);
    expect(runs.map((r) => r.name)).toEqual(["good"]);
    expect(warnings).toEqual([expect.stringMatching(/^skipping .*bad: .*events\.db: not a readable event log/)]);
  });
});

describe("EventReader.follow", () => {
  it("hands over what is committed now, then each new commit, until stopped", async () => {
    const dir = tempDir();
    const store = open(dir);
    appendEvents(store, [runStarted(["a"])]);
    const reader = EventReader.open(dir);
    const seen: number[][] = [];
    const stop = reader.follow(0, (events) => seen.push(events.map((e) => e.seq)), 10);
    expect(seen).toEqual([[1]]);
    appendEvents(store, finishedJob("a").slice(0, 2));
    await vi.waitFor(() => expect(seen).toEqual([[1], [2, 3]]), { timeout: 10_000 });
    stop();
    // A second follower on the same interval hands over two commits made after the stop, one poll or
    // more apart: the first, were it still polling, would have polled between them and seen the first.
    const later: number[] = [];
    const stopLater = reader.follow(3, (events) => later.push(...events.map((e) => e.seq)), 10);
    appendEvents(store, finishedJob("a").slice(2, 3));
    await vi.waitFor(() => expect(later).toEqual([4]), { timeout: 10_000 });
    appendEvents(store, finishedJob("a").slice(3, 4));
    await vi.waitFor(() => expect(later).toEqual([4, 5]), { timeout: 10_000 });
    stopLater();
    reader.close();
    expect(seen).toEqual([[1], [2, 3]]);
  });
});

describe("EventReader.rowsOneByOne", () => {
  it("yields every row after a position in seq order, one at a time, as the log was at its first row while the writer commits", () => {
    const dir = tempDir();
    const store = open(dir);
    appendEvents(store, [runStarted(["a", "b"]), ...finishedJob("a")]);
    const reader = EventReader.open(dir);
    const visited: number[] = [];
    // A commit while the reader iterates (WAL: the iteration sees the log as it began).
    for (const row of reader.rowsOneByOne(1)) {
      visited.push(row.seq);
      if (visited.length === 1) appendEvents(store, finishedJob("b"));
    }
    const total = reader.lastSeq();
    expect(visited).toEqual(Array.from({ length: finishedJob("a").length }, (_, i) => i + 2));
    expect(total).toBe(1 + 2 * finishedJob("a").length);
    expect([...reader.rowsOneByOne(total)]).toEqual([]);
    // An iteration in progress holds the connection open until it is ended.
    const rows = reader.rowsOneByOne(0);
    expect(rows.next().value?.seq).toBe(1);
    expect(reader.lastSeq()).toBe(total);
    expect(() => reader.close()).toThrow(/busy/);
    rows.return?.();
    reader.close();
    store.close();
  });
});

describe("EventStore: a position taken behind the writer's back", () => {
  it("an append onto a taken position is refused as a wrong expected version, and nothing of it commits", () => {
    const dir = tempDir();
    const store = open(dir);
    appendEvents(store, [runStarted(["a"])]);
    const db = new Database(join(dir, "events.db"));
    db.prepare("INSERT INTO events (v, stream, position, type, run_id, job_id, ts, data) VALUES (2, 'run', 2, 'RunFinished', ?, NULL, 'now', ?)").run(RUN_ID, JSON.stringify({ invocation: 1, counts: {}, not_run: {} }));
    db.close();
    let error: unknown;
    try {
      store.append("run", 1, [{ type: "RunFinished", data: { invocation: 1, counts: {}, not_run: {} } }]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WrongExpectedVersionError);
    expect(error).toMatchObject({ stream: "run", expected: 1, actual: 2 });
    expect(store.readAll()).toHaveLength(2);
  });
});

describe("EventStore.scanLines (replay's read of the log)", () => {
  it("hands each event with its mirror line, byte for byte mirrorLine's, even where an envelope needs escapes", () => {
    const dir = tempDir();
    const store = open(dir);
    appendEvents(store, [runStarted(["a", "b"]), ...finishedJob("a"), ...finishedJob("b")]);
    // A doctored envelope: SQLite's escaping is not asked to agree with JSON.stringify's.
    const db = new Database(join(dir, "events.db"));
    db.prepare("UPDATE events SET ts = ? WHERE seq = 3").run('2026-01-01 "quoted"\n\u0001');
    db.prepare("UPDATE events SET ts = ? WHERE seq = 4").run("2026-01-01T00:00:00.000Z \u00e9\u2028");
    db.close();
    const seen: [number, string][] = [];
    const events: unknown[] = [];
    const last = store.scanLines((event, line) => {
      seen.push([event.seq, typeof line === "string" ? line : [...line.pieces()].join("")]);
      events.push(event);
    });
    const rows = store.rowsAfter(0);
    expect(last).toBe(rows.length);
    expect(seen.map(([seq]) => seq)).toEqual(rows.map((r) => r.seq));
    expect(seen.map(([, line]) => line)).toEqual(rows.map(mirrorLine));
    expect(seen[2]![1]).toContain('"ts":"2026-01-01 \\"quoted\\"\\n\\u0001"');
    expect(events).toEqual(store.readAll()); // the same events as decoded from the rows
  });

  it("hands a start's line in pieces (its payload a part at a time) that join into mirrorLine's bytes, and its event decoded", () => {
    const dir = tempDir();
    const store = open(dir);
    // About 5,000 matrix entries: a payload of more than one part (a million characters).
    const ids = Array.from({ length: 5000 }, (_, i) => `job${i}`);
    appendEvents(store, [runStarted(ids), ...finishedJob("job0")]);
    const lines: (string | string[])[] = [];
    const events: unknown[] = [];
    store.scanLines((event, line) => {
      lines.push(typeof line === "string" ? line : [...line.pieces()]);
      events.push(event);
    });
    const rows = store.rowsAfter(0);
    const startPieces = lines[0] as string[];
    expect(Array.isArray(startPieces)).toBe(true);
    expect(rows[0]!.data.length).toBeGreaterThan(1 << 20);
    expect(startPieces.length).toBeGreaterThan(3); // envelope, two parts or more, end
    expect(startPieces.join("")).toBe(mirrorLine(rows[0]!));
    expect(lines.slice(1)).toEqual(rows.slice(1).map(mirrorLine));
    expect(events).toEqual(store.readAll());
  });

  it("refuses a payload that is not one JSON value, as reading the rows does, even where the line around it would parse", () => {
    for (const payload of ['{"attempt":1,"invocation":1},"type":"JobFinished"', '1,"seq":99']) {
      const dir = tempDir();
      const store = open(dir);
      appendEvents(store, [runStarted(["a"]), ...finishedJob("a")]);
      const db = new Database(join(dir, "events.db"));
      db.prepare("UPDATE events SET data = ? WHERE seq = 2").run(payload);
      db.close();
      expect(() => store.readAll()).toThrow(EventLogCorruptError);
      expect(() => store.scanLines(() => {})).toThrow(EventLogCorruptError);
      expect(() => store.scanLines(() => {})).toThrow(/event 2 \(JobQueued\): its payload is not JSON/);
    }
  });

  it("hands the caller's own decoded events for the seqs it gives, and the lines still come from the log", () => {
    const dir = tempDir();
    const store = open(dir);
    appendEvents(store, [runStarted(["a"]), ...finishedJob("a")]);
    const start = store.readAll()[0]!;
    const events: unknown[] = [];
    store.scanLines((event) => events.push(event), new Map([[1, start]]));
    expect(events[0]).toBe(start);
    expect(events.slice(1)).toEqual(store.readAll().slice(1));
  });
});
