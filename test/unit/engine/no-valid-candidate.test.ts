/** When a job has no valid candidate (its result is the task's failure value), and what the run's summary counts. */
import { describe, expect, it } from "vitest";
import { noValidCandidateReason } from "../../../src/engine/no-valid-candidate.js";
import { jobOutcomes, outcomesLine } from "../../../src/events/projections/job-outcomes.js";
import type { FinishedAttempt } from "../../../src/events/run-state.js";

describe("noValidCandidateReason", () => {
  it("only when the job's result is the task's failure value; the reason quotes the final evaluation without the split preface, on one line", () => {
    expect(noValidCandidateReason(undefined, -1e6, true, "x", null)).toBeNull();
    expect(noValidCandidateReason(-1e6, -5, true, "x", null)).toBeNull();
    expect(noValidCandidateReason(-1e6, -1e6, true, 'train_dataset: mean over 1 examples. TRACE_FEEDBACK_JSON={"status": "error"}\nAutonomous eval failed: boom', null)).toBe(
      `no_valid_candidate: the initial and the final candidate both scored the task's failure value -1000000.0; final evaluation: TRACE_FEEDBACK_JSON={"status": "error"} Autonomous eval failed: boom`,
    );
    const long = noValidCandidateReason(-1e6, -1e6, true, "y".repeat(500), "budget_exhausted: job tokens")!;
    expect(long).toContain("(training stopped: budget_exhausted: job tokens)");
    expect(long.endsWith("…")).toBe(true);
    expect(long.split("; final evaluation: ")[1]).toHaveLength(160);
  });

  it("when no evaluation produced a score on a split with examples (each ended in an error), whatever the failure value; an empty split stays ok", () => {
    const lost = "validate_dataset: eval_error[0]: kernel evaluation server unreachable: ECONNREFUSED";
    expect(noValidCandidateReason(undefined, null, true, lost, null)).toBe(
      "no_valid_candidate: no evaluation produced a score, each ended in an error; final evaluation: validate_dataset: eval_error[0]: kernel evaluation server unreachable: ECONNREFUSED",
    );
    expect(noValidCandidateReason(-1e6, null, true, lost, "budget_exhausted: run tokens")).toContain("each ended in an error (training stopped: budget_exhausted: run tokens); final evaluation: ");
    expect(noValidCandidateReason(undefined, null, false, "validate_dataset: empty_dataset", null)).toBeNull();
    expect(noValidCandidateReason(-1e6, null, false, "train_dataset: empty_dataset", null)).toBeNull();
  });
});

describe("jobOutcomes", () => {
  const job = (job_id: string, status: string, initial: number | null, final: number | null, no_search = false) => ({
    job_id,
    finished: { status, score_val_initial: initial, score_val_final: final, no_search } as unknown as FinishedAttempt,
  });
  it("counts improvements among scored jobs, no_valid_candidate jobs, and lists the jobs that did no search", () => {
    const outcomes = jobOutcomes([job("a", "ok", -3, -2), job("b", "ok", -3, -3), job("c", "no_valid_candidate", -1e6, -1e6, true), job("d", "failed", null, -1), { job_id: "e", finished: null }]);
    expect(outcomes).toEqual({ scored: 3, improved: 1, no_valid_candidate: 1, no_search: ["c"] });
    expect(outcomesLine(outcomes, false)).toBe(
      "Outcomes: 1 of 3 scored jobs improved on their initial score; 1 no_valid_candidate (every candidate kept failed to evaluate: the task's failure value or no score; not ranked); 1 job did no search (the optimizer never proposed a change)",
    );
    expect(outcomesLine({ scored: 1, improved: 1, no_valid_candidate: 0, no_search: [] }, true)).toBe("Outcomes: 1 of 1 scored job improved on its initial score");
  });
});
