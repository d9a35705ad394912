/**
 * Group commit (event-store.ts): a run's appends join one transaction that commits when the event
 * loop's turn ends, except what must be durable before the world sees it (run events, LLM calls).
 * Only committed events are handed on; a group that cannot commit is lost whole, and the store
 * then refuses every append with the same error.
 */
import { join } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { StoredEvent } from "../../../src/events/event-schema.js";
import { EventStore } from "../../../src/events/event-store.js";
import { tempDir } from "../../support/cli.js";
import { appendEvents, finishedJob, RUN_ID, runStarted } from "../../support/events.js";

const stores: EventStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  vi.unstubAllEnvs();
  vi.resetModules();
});

/** A grouping store, and what it has handed on (committed events, failures it alone saw). */
function openGrouping(dir: string, Store: typeof EventStore = EventStore) {
  const store = Store.open(dir, RUN_ID, { command: "test", groupCommit: true });
  stores.push(store);
  const committed: StoredEvent[][] = [];
  const failures: unknown[] = [];
  store.onCommit(
    (events) => committed.push([...events]),
    (error) => failures.push(error),
  );
  return { store, committed, failures };
}

/** What another connection (a reader, the files' thread) sees in the log. */
function committedTypes(dir: string): string[] {
  const db = new Database(join(dir, "events.db"), { readonly: true });
  try {
    return db.prepare("SELECT type FROM events ORDER BY seq").pluck().all() as string[];
  } finally {
    db.close();
  }
}

describe("group commit", () => {
  it("jobs' appends in one turn commit together when the turn ends, and are handed on only then", async () => {
    const dir = tempDir();
    const { store, committed } = openGrouping(dir);
    appendEvents(store, [runStarted(["a", "b"])]); // run events commit at once
    expect(committed.map((g) => g.map((e) => e.type))).toEqual([["RunStarted"]]);

    // Job events without an LLM call: the first six of each job.
    const stored = appendEvents(store, [...finishedJob("a").slice(0, 5), ...finishedJob("b").slice(0, 5)]);
    expect(stored.map((e) => e.seq)).toEqual(Array.from({ length: 10 }, (_, i) => i + 2));
    expect(committedTypes(dir)).toEqual(["RunStarted"]); // nobody else sees them yet
    expect(committed).toHaveLength(1);
    expect(store.streamVersion("job-a")).toBe(5); // the writer goes on from them

    await nextTurn();
    expect(committedTypes(dir)).toHaveLength(11);
    expect(committed).toHaveLength(2);
    expect(committed[1]!.map((e) => e.seq)).toEqual(stored.map((e) => e.seq)); // one group, in seq order
  });

  it("an LLM call commits at once, with everything before it; so does a run event", () => {
    const dir = tempDir();
    const { store, committed } = openGrouping(dir);
    appendEvents(store, [runStarted(["a", "b"])]);
    appendEvents(store, finishedJob("b").slice(0, 2));
    const job = finishedJob("a");
    const llmAt = job.findIndex((e) => e.type === "LlmCallCompleted");
    appendEvents(store, job.slice(0, llmAt));
    expect(committedTypes(dir)).toHaveLength(1);
    appendEvents(store, [job[llmAt]!]);
    expect(committedTypes(dir)).toHaveLength(1 + 2 + llmAt + 1);
    expect(committed.at(-1)!.at(-1)!.type).toBe("LlmCallCompleted");

    appendEvents(store, job.slice(llmAt + 1));
    expect(committedTypes(dir)).toHaveLength(1 + 2 + llmAt + 1); // the rest waits for the turn to end
    appendEvents(store, [{ type: "RunFinished", data: { invocation: 1, counts: { ok: 1 }, not_run: {} } }]);
    expect(committedTypes(dir).at(-1)).toBe("RunFinished");
    expect(committedTypes(dir)).toHaveLength(1 + 2 + job.length + 1);
  });

  it("a refused append leaves the open group as it was", async () => {
    const dir = tempDir();
    const { store } = openGrouping(dir);
    appendEvents(store, [runStarted(["a", "b"])]);
    appendEvents(store, finishedJob("a").slice(0, 3));
    expect(() => store.append("job-b", 4, finishedJob("b").slice(0, 1))).toThrow(/expected version 4, found 0/);
    appendEvents(store, finishedJob("b").slice(0, 2));
    await nextTurn();
    expect(committedTypes(dir)).toEqual(["RunStarted", "JobQueued", "JobTransitioned", "EvaluationCompleted", "JobQueued", "JobTransitioned"]);
  });

  it("closing commits what is pending", () => {
    const dir = tempDir();
    const { store } = openGrouping(dir);
    appendEvents(store, [runStarted(["a"]), ...finishedJob("a").slice(0, 4)]);
    store.close();
    expect(committedTypes(dir)).toHaveLength(5);
  });

  it("a group that cannot be written is lost whole: nothing of it is handed on, and every later append fails with the disk's error", async () => {
    // The store's test hook fails every write from seq 6 on, as a full disk does.
    vi.stubEnv("TRACE_BENCH_TEST_DISK_FULL_AT_SEQ", "6");
    vi.resetModules();
    const { EventStore: FullDiskStore } = await import("../../../src/events/event-store.js");
    const dir = tempDir();
    const { store, committed } = openGrouping(dir, FullDiskStore);
    appendEvents(store, [runStarted(["a", "b"])]);
    appendEvents(store, finishedJob("b").slice(0, 2)); // pending: seqs 2 and 3
    appendEvents(store, finishedJob("a").slice(0, 2)); // pending: seqs 4 and 5
    expect(() => appendEvents(store, finishedJob("a").slice(2, 3))).toThrow(/disk is full/);
    // Job b's events were in the lost group too: the log and the writer's versions say so.
    expect(store.streamVersion("job-b")).toBe(0);
    expect(store.streamVersion("job-a")).toBe(0);
    expect(() => store.append("job-b", 0, finishedJob("b").slice(0, 1))).toThrow(/disk is full/);
    expect(() => store.flush()).toThrow(/disk is full/);
    await nextTurn();
    expect(committedTypes(dir)).toEqual(["RunStarted"]);
    expect(committed.flat().map((e) => e.type)).toEqual(["RunStarted"]);
  });
});
