/**
 * The view store keeps each run projection's state, made by its `initialState`: a new read model of
 * the run is one projection and one table entry, with no field added to the store (the sketch in
 * docs/architecture.md, made real here without landing it).
 */
import { describe, expect, it } from "vitest";
import type { NewEvent, StoredEvent } from "../../../src/events/event-schema.js";
import { RunState } from "../../../src/events/run-state.js";
import type { Projection } from "../../../src/events/views/projection.js";
import { WHOLE_RUN } from "../../../src/events/views/projector.js";
import { runHeaderProjection } from "../../../src/events/views/run-header-projection.js";
import { finishedJob, RUN_ID, runStarted } from "../../support/events.js";

const stored = (events: readonly NewEvent[]): StoredEvent[] =>
  events.map((e, i) => ({ seq: i + 1, type: e.type, run_id: RUN_ID, job_id: e.job_id ?? null, ts: "2026-01-01T00:00:00.000Z", data: e.data }) as StoredEvent);

/** A read model a table does not hold yet: finished attempts by status. */
const finishedByStatus: Projection<Map<string, number>> = {
  canHandle: new Set(["JobFinished"]),
  initialState: () => new Map(),
  evolve(counts, event) {
    if (event.type === "JobFinished") counts.set(event.data.status, (counts.get(event.data.status) ?? 0) + 1);
  },
};

describe("the view store's projections", () => {
  const log = stored([runStarted(["a", "b", "c"]), ...finishedJob("a"), ...finishedJob("b", 1, -1, "failed"), ...finishedJob("c"), ...finishedJob("b", 2)]);

  it("a projection added to the table is folded into a state of its own, from its initial state", () => {
    const state = new RunState({ ...WHOLE_RUN, run: [...WHOLE_RUN.run, finishedByStatus] });
    expect(state.view(finishedByStatus)).toEqual(new Map());
    for (const event of log) state.apply(event);
    expect([...state.view(finishedByStatus)].sort()).toEqual([
      ["failed", 1],
      ["ok", 3],
    ]);
    // Applying an event again changes nothing (the store ignores what it has seen).
    state.apply(log.at(-1)!);
    expect(state.view(finishedByStatus).get("ok")).toBe(3);
  });

  it("a store whose table lacks it keeps its initial state, and the views every table has are as before", () => {
    const state = RunState.fold(log);
    expect(state.view(finishedByStatus)).toEqual(new Map());
    expect(state.view(runHeaderProjection).order).toEqual(["a", "b", "c"]);
    expect(state.order).toBe(state.view(runHeaderProjection).order);
    expect(state.statusOf("b")).toBe("ok");
  });
});
