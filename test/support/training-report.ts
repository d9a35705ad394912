import type { TrainingReport } from "../../machines/job.machine.js";

/** A training report that saw nothing wrong, with `over` changed: what the machine's verdict guards read. */
export function trainingReport(over: Partial<TrainingReport> = {}): TrainingReport {
  return {
    budgetExhausted: null,
    calls: { started: 0, completed: 0, failed: 0, usable: 0, unusable: 0 },
    lastCallFailure: null,
    lastUnusableReply: null,
    trainerError: null,
    ...over,
  };
}
