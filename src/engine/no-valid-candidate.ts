/**
 * When a job has no valid result: the score it reports (the better of its initial and final
 * evaluations) is the task's failure value, or there is none, so every candidate it kept failed to
 * evaluate. Such a job ranks nowhere (status `no_valid_candidate`); its reason says what the final
 * one got.
 */
import { pythonFloatRepr } from "../codec/python-json.js";

/** The longest excerpt of the final evaluation's feedback a reason quotes (reasons are one line). */
const FEEDBACK_EXCERPT = 160;

/**
 * The job's reason when it has no valid candidate, else null: both evaluations scored the task's
 * failure value, or neither produced a score although the split has examples (each ended in an
 * agent or guide error: a verifier that was lost, a tool that always fails). An empty split keeps
 * its null score and `ok`, as in the original (spec §5.3).
 */
export function noValidCandidateReason(failureScore: number | undefined, scoreVal: number | null, splitHasExamples: boolean, finalFeedback: string, budgetReason: string | null): string | null {
  const budget = budgetReason === null ? "" : ` (training stopped: ${budgetReason})`;
  if (scoreVal === null) return splitHasExamples ? `no_valid_candidate: no evaluation produced a score, each ended in an error${budget}; final evaluation: ${excerptOf(finalFeedback)}` : null;
  if (failureScore === undefined || scoreVal !== failureScore) return null;
  return `no_valid_candidate: the initial and the final candidate both scored the task's failure value ${pythonFloatRepr(failureScore)}${budget}; final evaluation: ${excerptOf(finalFeedback)}`;
}

/** The evaluation's own words on one line, without the split's "mean over n examples." preface. */
function excerptOf(feedback: string): string {
  const line = feedback.replace(/^\S+: mean over \d+ examples?\. /, "").replace(/\s+/g, " ").trim();
  return line.length > FEEDBACK_EXCERPT ? `${line.slice(0, FEEDBACK_EXCERPT - 1)}…` : line;
}
