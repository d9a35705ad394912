import { describe, expect, it } from "vitest";
import type { ResumeMode } from "../../../src/config/run-config.js";
import { planInvocation } from "../../../src/engine/invocation-plan.js";
import type { NewEvent, StoredEvent } from "../../../src/events/event-schema.js";
import { RunState } from "../../../src/events/run-state.js";
import { finishedJob, runStarted } from "../../support/events.js";

/** A run whose jobs a, b, c, d, e ended ok, failed, budget_exhausted, never finished, and no_valid_candidate. */
function events(): StoredEvent[] {
  const withStatus = (id: string, status: string): NewEvent[] =>
    finishedJob(id).map((e) => (e.type === "JobFinished" ? ({ ...e, data: { ...e.data, status } } as NewEvent) : e));
  const all: NewEvent[] = [runStarted(["a", "b", "c", "d", "e"]), ...withStatus("a", "ok"), ...withStatus("b", "failed"), ...withStatus("c", "budget_exhausted"), ...finishedJob("d").slice(0, 3), ...withStatus("e", "no_valid_candidate")];
  return all.map((e, i) => ({ ...e, seq: i + 1, v: 2, stream: "", position: 0, run_id: "r", job_id: e.job_id ?? null, ts: "" }) as StoredEvent);
}
const state = (): RunState => RunState.fold(events());
/** A job's stream, as the log would return it. */
const historyOf = (jobId: string) => events().filter((e) => e.job_id === jobId);

const plan = (mode: ResumeMode) => ({ jobs: ["a", "b", "c", "d", "e"].map((job_id) => ({ job_id })), resumeMode: mode, resuming: true }) as unknown as Parameters<typeof planInvocation>[0];
const ran = (mode: ResumeMode) => planInvocation(plan(mode), state(), historyOf).jobs.map((j) => j.spec.job_id);

describe("which jobs a resume runs again", () => {
  it("auto keeps ok, budget_exhausted and no_valid_candidate results (re-running would spend the same again), re-runs failed and unfinished jobs", () => {
    expect(ran("auto")).toEqual(["b", "d"]);
  });

  it("failed re-runs the failed job and the one with no valid candidate; none re-runs everything", () => {
    expect(ran("failed")).toEqual(["b", "e"]);
    expect(ran("none")).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("a re-run is the job's next attempt, with its history for the journal", () => {
    const d = planInvocation(plan("auto"), state(), historyOf).jobs.find((j) => j.spec.job_id === "d")!;
    expect(d.attempt).toBe(2);
    expect(d.history.map((e) => e.type)).toEqual(["JobQueued", "JobTransitioned", "EvaluationCompleted"]);
  });
});
