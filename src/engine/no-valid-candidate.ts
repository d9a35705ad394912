/**
 * When a job has no valid result: the score it reports (the better of its initial and final
 * evaluations) is the task's failure value, so every candidate it kept failed to evaluate. Such a
 * job ranks nowhere (status `no_valid_candidate`); its reason says what the final one got.
 */
import { pythonFloatRepr } from "../codec/python-json.js";

/** The longest excerpt of the final evaluation's feedback a reason quotes (reasons are one line). */
const FEEDBACK_EXCERPT = 160;

/** The job's reason when it has no valid candidate, else null. */
export function noValidCandidateReason(failureScore: number | undefined, scoreVal: number | null, finalFeedback: string, budgetReason: string | null): string | null {
  if (failureScore === undefined || scoreVal === null || scoreVal !== failureScore) return null;
  // The evaluation's own words, without the split's "mean over n examples." preface.
  const line = finalFeedback.replace(/^\S+: mean over \d+ examples?\. /, "").replace(/\s+/g, " ").trim();
  const excerpt = line.length > FEEDBACK_EXCERPT ? `${line.slice(0, FEEDBACK_EXCERPT - 1)}…` : line;
  const budget = budgetReason === null ? "" : ` (training stopped: ${budgetReason})`;
  return `no_valid_candidate: the initial and the final candidate both scored the task's failure value ${pythonFloatRepr(failureScore)}${budget}; final evaluation: ${excerpt}`;
}
