import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { EventDecodeError } from "../../../src/events/event-schema.js";
import { EventStore, jobMirrorPath, peekRun } from "../../../src/events/event-store.js";
import { tempDir } from "../../support/cli.js";
import { finishedJob, RUN_ID, runStarted } from "../../support/events.js";

const stores: EventStore[] = [];
function open(dir: string): EventStore {
  const store = EventStore.open(dir, RUN_ID, { create: true, now: () => new Date("2026-01-01T00:00:00.000Z") });
  stores.push(store);
  return store;
}
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

const lines = (path: string) => readFileSync(path, "utf8").split("\n").filter(Boolean);

/** The mirror must equal SQLite: same events, same seq, same order. */
function expectMirrorsMatch(dir: string, jobIds: readonly string[]): void {
  const db = new Database(join(dir, "events.db"), { readonly: true });
  const rows = db.prepare("SELECT seq, type, job_id, data FROM events ORDER BY seq").all() as { seq: number; type: string; job_id: string | null; data: string }[];
  db.close();
  const summary = (line: string) => {
    const e = JSON.parse(line) as { seq: number; type: string; job_id: string | null; data: unknown };
    return [e.seq, e.type, e.job_id, JSON.stringify(e.data)];
  };
  const expected = rows.map((r) => [r.seq, r.type, r.job_id, JSON.stringify(JSON.parse(r.data))]);
  expect(lines(join(dir, "events.jsonl")).map(summary)).toEqual(expected);
  for (const id of jobIds) expect(lines(jobMirrorPath(dir, id)).map(summary)).toEqual(expected.filter((r) => r[2] === id));
}

describe("EventStore", () => {
  it("assigns consecutive seqs, reads back decoded events, and mirrors them", () => {
    const dir = tempDir();
    const store = open(dir);
    const stored = store.append([runStarted(["a", "b"]), ...finishedJob("a")]);
    expect(stored.map((e) => e.seq)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
    store.append(finishedJob("b"));
    const all = store.readAll();
    expect(all).toHaveLength(21);
    expect(all[0]).toMatchObject({ seq: 1, type: "RunStarted", run_id: RUN_ID, job_id: null, ts: "2026-01-01T00:00:00.000Z" });
    expect(all.at(-1)).toMatchObject({ type: "JobFinished", job_id: "b" });
    expect(store.lastSeq()).toBe(21);
    expectMirrorsMatch(dir, ["a", "b"]);
  });

  it("an append is one transaction: a bad event leaves nothing behind", () => {
    const dir = tempDir();
    const store = open(dir);
    store.append([runStarted(["a"])]);
    const bad = [...finishedJob("a").slice(0, 3), { type: "JobQueued", data: { attempt: 1, invocation: 1 } } as never];
    expect(() => store.append(bad)).toThrow(/needs a job_id/);
    expect(store.readAll()).toHaveLength(1);
    expectMirrorsMatch(dir, []);
  });

  it("repairs a mirror that lags behind SQLite (crash between commit and mirror write)", () => {
    const dir = tempDir();
    const store = open(dir);
    store.append([runStarted(["a"]), ...finishedJob("a")]);
    store.close();
    // Simulate the crash: drop the last three lines of both mirrors.
    for (const path of [join(dir, "events.jsonl"), jobMirrorPath(dir, "a")]) {
      writeFileSync(path, lines(path).slice(0, -3).map((l) => `${l}\n`).join(""));
    }
    open(dir);
    expectMirrorsMatch(dir, ["a"]);
  });

  it("drops a torn (half-written) last line and completes it from SQLite", () => {
    const dir = tempDir();
    const store = open(dir);
    store.append([runStarted(["a"]), ...finishedJob("a")]);
    store.close();
    const path = jobMirrorPath(dir, "a");
    const kept = lines(path).slice(0, -1);
    writeFileSync(path, kept.map((l) => `${l}\n`).join("") + '{"seq":11,"type":"JobFin');
    appendFileSync(join(dir, "events.jsonl"), '{"seq":12,"ty');
    open(dir);
    expectMirrorsMatch(dir, ["a"]);
  });

  it("rewrites a mirror that is corrupt or ahead of SQLite", () => {
    const dir = tempDir();
    const store = open(dir);
    store.append([runStarted(["a"]), ...finishedJob("a")]);
    store.close();
    writeFileSync(join(dir, "events.jsonl"), "garbage\n");
    appendFileSync(jobMirrorPath(dir, "a"), '{"seq":99,"type":"JobQueued"}\n');
    open(dir);
    expectMirrorsMatch(dir, ["a"]);
  });

  it("refuses to decode an unknown event type instead of dropping it", () => {
    const dir = tempDir();
    open(dir).append([runStarted(["a"])]);
    const db = new Database(join(dir, "events.db"));
    db.prepare("INSERT INTO events (type, run_id, job_id, ts, data) VALUES ('FutureEvent', ?, NULL, 'now', '{}')").run(RUN_ID);
    db.close();
    expect(() => open(dir).readAll()).toThrow(EventDecodeError);
    expect(() => open(dir).readAll()).toThrow(/unknown event type 'FutureEvent'/);
  });

  it("refuses a payload that does not match its schema", () => {
    const dir = tempDir();
    open(dir).append([runStarted(["a"])]);
    const db = new Database(join(dir, "events.db"));
    db.prepare(`INSERT INTO events (type, run_id, job_id, ts, data) VALUES ('JobQueued', ?, 'a', 'now', '{"attempt":"one"}')`).run(RUN_ID);
    db.close();
    expect(() => open(dir).readAll()).toThrow(/event 2 \(JobQueued\)/);
  });

  it("peekRun reports the config hash and whether the latest invocation finished", () => {
    const dir = tempDir();
    const store = open(dir);
    store.append([runStarted(["a"])]);
    expect(peekRun(dir)).toEqual({ runId: RUN_ID, configHash: "0123456789abcdef", finished: false });
    store.append([{ type: "RunFinished", data: { invocation: 1, counts: {}, not_run: {} } }]);
    expect(peekRun(dir)?.finished).toBe(true);
    store.append([runStarted(["a"], 2)]);
    expect(peekRun(dir)?.finished).toBe(false);
    expect(peekRun(tempDir())).toBeNull();
  });
});
