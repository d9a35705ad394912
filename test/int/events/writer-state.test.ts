/**
 * The writer's lean run state and its snapshot (writer-state.ts): restoring the snapshot and
 * folding what came after gives the state a fold of the whole log gives; a snapshot that does not
 * fit the log is ignored.
 */
import { afterEach, describe, expect, it } from "vitest";
import { EventStore } from "../../../src/events/event-store.js";
import { RunState } from "../../../src/events/run-state.js";
import { typesOf, WRITER } from "../../../src/events/views/projector.js";
import { writerSnapshot } from "../../../src/events/views/view-snapshot.js";
import { openWriterState, saveWriterState } from "../../../src/events/writer-state.js";
import { tempDir } from "../../support/cli.js";
import { appendEvents, finishedJob, RUN_ID, runStarted } from "../../support/events.js";

const stores: EventStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

function open(dir: string): EventStore {
  const store = EventStore.open(dir, RUN_ID, { command: "test" });
  stores.push(store);
  return store;
}

/** A lean fold of the whole log, snapshot aside. */
function folded(store: EventStore): RunState {
  const state = RunState.writer();
  state.skipTo(store.scan((event) => state.apply(event), typesOf(WRITER)));
  return state;
}

/** A log of three jobs: two finished (one failed), one queued and never finished. */
function startedLog(dir: string): EventStore {
  const store = open(dir);
  appendEvents(store, [runStarted(["a", "b", "c"])]);
  appendEvents(store, finishedJob("a"));
  appendEvents(store, finishedJob("b", 1, -5, "failed"));
  appendEvents(store, finishedJob("c").slice(0, 3));
  return store;
}

describe("the writer's state", () => {
  it("restored from its snapshot, with the events committed after it, equals a fold of the whole log", () => {
    const dir = tempDir();
    const store = startedLog(dir);
    saveWriterState(store, openWriterState(store));
    // A second invocation (of a matrix without c, which only the first knew) re-runs b; then c's
    // attempt ends. All of it after the snapshot.
    saveWriterState(store, openWriterState(store));
    appendEvents(store, [runStarted(["a", "b"], 2)]);
    appendEvents(store, finishedJob("b", 2, -1));
    appendEvents(store, finishedJob("c").slice(3));

    const restored = openWriterState(store);
    const whole = folded(store);
    expect(writerSnapshot(restored)).toBe(writerSnapshot(whole));
    // Field by field too: the snapshot leaves out what a new view holds, and restoring puts it back.
    for (const id of ["a", "b", "c"]) expect(restored.jobs.get(id)).toEqual(whole.jobs.get(id));
    expect(restored.jobs.get("a")!.finished!.tokens.total_tokens, "a job with LLM use").toBeGreaterThan(0);
    expect(["a", "b", "c"].map((id) => [restored.statusOf(id), restored.jobs.get(id)!.attempt])).toEqual([
      ["ok", 1],
      ["ok", 2],
      ["ok", 1],
    ]);
    expect(restored.llmByModel.get("stub")).toEqual(whole.llmByModel.get("stub"));
    expect(restored.invocations).toBe(2);
    // Views share their specs with the matrix, as a fold's do.
    expect(restored.jobs.get("a")!.spec).toBe(restored.started!.matrix[0]);
    expect(restored.order).toEqual(["a", "b", "c"]);
    // Saved now, the snapshot holds c's spec itself (no longer in the latest matrix).
    store.saveSnapshot("writer-state", restored.lastSeq, store.snapshot("writer-state")!.format, writerSnapshot(restored));
    const again = openWriterState(store);
    expect(writerSnapshot(again)).toBe(writerSnapshot(whole));
    // What jobs repeat (kwargs, agent, feedback, token totals) is written once; each attempt still gets totals of its own.
    const values = (JSON.parse(writerSnapshot(whole)) as { values: unknown[] }).values.map((v) => JSON.stringify(v));
    expect(new Set(values).size).toBe(values.length);
    expect(again.jobs.get("a")!.finished!.tokens).toEqual(again.jobs.get("c")!.finished!.tokens);
    expect(again.jobs.get("a")!.finished!.tokens).not.toBe(again.jobs.get("c")!.finished!.tokens);
  });

  it("keeps a usable snapshot that is a few events behind, and replaces one far behind or of another format", () => {
    const dir = tempDir();
    const store = startedLog(dir);
    saveWriterState(store, openWriterState(store));
    const first = store.snapshot("writer-state")!;
    appendEvents(store, finishedJob("c").slice(3));
    saveWriterState(store, openWriterState(store));
    expect(store.snapshot("writer-state")!.seq, "a few events behind: kept").toBe(first.seq);

    store.saveSnapshot("writer-state", first.seq, "0:old", first.data);
    saveWriterState(store, openWriterState(store));
    expect(store.snapshot("writer-state")!.seq, "another format: replaced").toBe(store.lastSeq());

    const many = Array.from({ length: 120 }, (_, i) => `j${i}`);
    appendEvents(store, [runStarted(many, 2)]);
    for (const id of many) appendEvents(store, finishedJob(id));
    saveWriterState(store, openWriterState(store));
    expect(store.snapshot("writer-state")!.seq, "1,000 or more events behind: replaced").toBe(store.lastSeq());
  });

  it("is restored from the snapshot, not folded again, when nothing came after it", () => {
    const dir = tempDir();
    const store = startedLog(dir);
    const state = openWriterState(store);
    saveWriterState(store, state);
    // A doctored snapshot (a job said failed) shows that the next writer read it rather than the log.
    // A finished attempt is saved as its fields' values in a fixed order, its status the only "ok".
    const saved = JSON.parse(store.snapshot("writer-state")!.data) as { jobs: { job_id: string; finished: unknown[] }[] };
    const finished = saved.jobs.find((j) => j.job_id === "a")!.finished;
    finished[finished.indexOf("ok")] = "timeout";
    store.saveSnapshot("writer-state", state.lastSeq, store.snapshot("writer-state")!.format, JSON.stringify(saved));
    expect(openWriterState(store).statusOf("a")).toBe("timeout");
  });

  it("ignores a snapshot of another format, one ahead of the log, and one that does not parse", () => {
    const dir = tempDir();
    const store = startedLog(dir);
    const state = openWriterState(store);
    const whole = writerSnapshot(folded(store));
    saveWriterState(store, state);
    const format = store.snapshot("writer-state")!.format;
    // A doctored state (job a said to have timed out): had it been read, the state would differ.
    const saved = JSON.parse(writerSnapshot(state)) as { lastSeq: number; jobs: { job_id: string; finished: { status: string } | null }[] };
    saved.jobs.find((j) => j.job_id === "a")!.finished!.status = "timeout";
    const doctored = JSON.stringify(saved);
    const ahead = JSON.stringify({ ...saved, lastSeq: state.lastSeq + 5 });
    for (const [seq, fmt, data] of [
      [state.lastSeq, "0:old", doctored],
      [state.lastSeq + 5, format, ahead],
      [state.lastSeq, format, "{not json"],
    ] as const) {
      store.saveSnapshot("writer-state", seq, fmt, data);
      expect(writerSnapshot(openWriterState(store)), `${seq} ${fmt}`).toBe(whole);
    }
  });
});
