/**
 * A released job's details folded again from its events (RunState.restoreDetail): the view is the
 * one a fold that never released it holds, and the run's LLM totals count each call once.
 */
import { describe, expect, it } from "vitest";
import type { NewEvent } from "../../../src/events/event-schema.js";
import { RunState } from "../../../src/events/run-state.js";
import { runStarted } from "../../support/events.js";
import { callCompleted, callFailed, callStarted, iteration, jobFinished, jobQueued, storedEvents } from "../../support/llm-events.js";

const firstAttempt: NewEvent[] = [
  runStarted(["a", "b"]),
  jobQueued("a", 1),
  callStarted("a", 1, 1),
  callCompleted("a", 1, 1, [100, 20], { cost: 0.002 }),
  iteration("a", 1, 1),
  callStarted("a", 1, 2),
  callFailed("a", 1, 2),
  jobFinished("a", 1),
  jobQueued("b", 1),
  jobFinished("b", 1),
];
const secondAttempt: NewEvent[] = [jobQueued("a", 2), callStarted("a", 2, 1), callCompleted("a", 2, 1, [50, 10], { cost: 0.001 }), jobFinished("a", 2)];

describe("RunState.restoreDetail", () => {
  const log = storedEvents([...firstAttempt, ...secondAttempt]);
  const settled = log.slice(0, firstAttempt.length);
  const historyOf = (jobId: string) => log.filter((event) => event.job_id === jobId);

  it("gives a released job the view a fold that never released it holds, and counts no call twice", () => {
    const kept = RunState.fold(settled);
    const released = RunState.fold(settled);
    released.releaseDetail("a");
    expect(released.jobs.get("a")!.log).toBe("");

    const other = released.jobs.get("b");
    released.restoreDetail("a", historyOf("a")); // the log holds later events too: they are left out
    expect(released.jobs.get("a")).toEqual(kept.jobs.get("a"));
    expect(released.jobs.get("a")!.log).not.toBe("");
    expect([...released.llmByModel]).toEqual([...kept.llmByModel]);
    expect([...released.llmByRole]).toEqual([...kept.llmByRole]);
    expect(released.jobs.get("b")).toBe(other); // other jobs untouched
  });

  it("a restored job that runs again folds to what a fold of the whole log gives", () => {
    const whole = RunState.fold(log);
    const state = RunState.fold(settled);
    state.releaseDetail("a");
    state.restoreDetail("a", historyOf("a"));
    for (const event of log.slice(settled.length)) state.apply(event);
    expect(state.jobs.get("a")).toEqual(whole.jobs.get("a"));
    expect([...state.llmByModel]).toEqual([...whole.llmByModel]);
  });

  it("leaves a job that was not released, and a lean state, as they are", () => {
    const state = RunState.fold(settled);
    const view = state.jobs.get("a")!;
    state.restoreDetail("a", historyOf("a"));
    expect(state.jobs.get("a")).toBe(view);
    const lean = RunState.writer();
    for (const event of settled) lean.apply(event);
    const leanView = lean.jobs.get("a")!;
    lean.restoreDetail("a", historyOf("a"));
    expect(lean.jobs.get("a")).toBe(leanView);
  });
});
