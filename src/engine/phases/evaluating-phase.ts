/**
 * `evaluating`: score the latest parameters (the final evaluation), then the best ones on the
 * test split when the task has one. Ends `EVALUATED` with the job's outcome, or
 * `NO_VALID_CANDIDATE` when every candidate it kept scored the task's failure value or none got a
 * score; the machine then ends the job by what training reported (failed, budget exhausted or done).
 */
import type { JobMachineEvent } from "../../../machines/job.machine.js";
import { scoreDataset } from "../../tasks/score-dataset.js";
import { noValidCandidateReason } from "../no-valid-candidate.js";
import { builtOf, evaluationFact, evaluationOptions, outcomeOf, type AttemptScope } from "./attempt-scope.js";
import { phaseWork } from "./attempt-stops.js";
import type { PhaseEnd } from "./job-phase.js";

export async function evaluating(scope: AttemptScope): Promise<PhaseEnd> {
  const { recorder, abort, progress } = scope;
  const { bundle, split, context, ledger, initial, initialScore } = builtOf(scope);
  const attempt = recorder.attempt();
  progress.noSearch = ledger.noSearch();
  const latest = progress.latest ?? initial;
  const final = await phaseWork(abort, () => scoreDataset(bundle, latest, split, context, evaluationOptions(scope)));
  progress.final = final;
  progress.feedback = final.feedback;
  const best = final.score !== null && (initialScore.score === null || final.score >= initialScore.score) ? latest : initial;
  progress.best = best;
  const testSet = bundle.test_dataset;
  if (testSet && testSet.inputs.length > 0) progress.test = await phaseWork(abort, () => scoreDataset(bundle, best, { name: "test_dataset", dataset: testSet }, context, evaluationOptions(scope)));
  const finalCandidate = ledger.candidateOf(latest);
  const testCandidate = progress.test ? ledger.candidateOf(best) : null;
  const facts = [evaluationFact("final", attempt, final, finalCandidate.id), ...(progress.test && testCandidate ? [evaluationFact("test", attempt, progress.test, testCandidate.id)] : [])];
  const outcome = outcomeOf(scope);
  // The budget's reason, as the machine recorded training's verdict.
  const splitHasExamples = Math.min(split.dataset.inputs.length, split.dataset.infos.length) > 0;
  const invalid = noValidCandidateReason(bundle.failureScore, outcome.score_val, splitHasExamples, final.feedback, recorder.context().budgetExhausted);
  const event: JobMachineEvent = invalid === null ? { type: "EVALUATED" } : { type: "NO_VALID_CANDIDATE", reason: invalid };
  return { event, facts, outcome, contents: new Map([...finalCandidate.contents, ...(testCandidate?.contents ?? [])]) };
}
