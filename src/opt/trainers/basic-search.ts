/**
 * BasicSearchAlgorithm (algorithms reference §3.2): the Minibatch loop, but each step asks the
 * optimizer for `num_proposals` proposals on the same batched feedback, scores every changed
 * proposal and the current values on the validate set (the train set when the task has none),
 * and moves to the best. The current values' validation score is measured once and then carried
 * along. `ensure_improvement` (default true, inherited) still checks the chosen values on the
 * minibatch and may revert them.
 *
 * Readings of the reference, deliberately:
 * - Ties go to the earliest candidate, proposals before the current values (Python's `max`).
 * - The proposals of a step come from the run's one optimizer, one after another, so each prompt
 *   carries the earlier ones in its memory (parity scenario basicsearch-memory).
 * - When the improvement check reverts the step, the carried validation score stays the
 *   reverted proposal's, as in the reference: the current values must then beat that inflated
 *   bar to be replaced (parity scenario basicsearch-inflated-bar).
 * - A validation example that fails scores `min_score` (default: none, which makes the
 *   candidate −∞, as the reference does).
 * - `objective_config` (a weighted or Pareto objective over the guide's named scores) selects
 *   among the proposals and the current values by their per-metric means on the validate set,
 *   as the reference's `select_best` does; the carried bar is then the chosen candidate's dict.
 *   `validate_guide` is accepted; validation uses the task's guide.
 */
import type { ParameterValues } from "../../domain/parameter.js";
import type { Trainer, TrainerContext } from "../trainer.js";
import { kwargReader, threadsOf } from "./classic-kwargs.js";
import { bestByObjective, reportedMetricScores, selectionObjective } from "../objectives/trainer-objective.js";
import { argmaxFirst, proposeMany, reportable, usableUpdate, validationExamples, validationScores, withUpdate, type ValidationScores } from "./classic-search.js";
import { MINIBATCH_KWARGS, minibatchSettings, runMinibatchLoop, type MinibatchUpdateRule } from "./minibatch.js";

export const BASIC_SEARCH_KWARGS = [...MINIBATCH_KWARGS, "num_proposals", "validate_guide", "objective_config"] as const;

const ID = "BasicSearchAlgorithm";

function bestOfProposalsRule(context: TrainerContext, numProposals: number, minScore: number | null): MinibatchUpdateRule {
  const optimizer = context.createOptimizer();
  const threads = threadsOf(context.kwargs);
  const validate = validationExamples(context);
  const objective = selectionObjective(context.kwargs);
  let current: ValidationScores | undefined;
  return {
    async propose(values, rollouts, step) {
      const proposals = await proposeMany(optimizer, context.problem(values, rollouts), numProposals, threads, context.signal);
      const candidates: (ValidationScores & { values: ParameterValues })[] = [];
      for (const [i, proposal] of proposals.entries()) {
        const update = usableUpdate(context, proposal, `step ${step}, proposal ${i + 1}`);
        if (update === null) continue;
        const candidate = withUpdate(values, update);
        candidates.push({ values: candidate, ...(await validationScores(context, candidate, validate, minScore)) });
      }
      current ??= await validationScores(context, values, validate, minScore);
      candidates.push({ values, ...current });
      const chosen = candidates[objective === null ? argmaxFirst(candidates, (c) => c.score) : bestByObjective(candidates.map((c) => c.scores), objective)]!;
      current = { score: chosen.score, scores: chosen.scores };
      return chosen.values;
    },
    reportedScore: () => reportable(current?.score),
    reportedScores: () => reportedMetricScores(current?.scores),
  };
}

export const basicSearchTrainer: Trainer = {
  id: ID,
  kwargs: BASIC_SEARCH_KWARGS,
  train(context) {
    const k = kwargReader(ID, context.kwargs);
    const settings = minibatchSettings(k);
    const numProposals = k.int("num_proposals", 4, 0);
    const minScore = k.optionalNumber("min_score", null);
    return runMinibatchLoop(context, settings, bestOfProposalsRule(context, numProposals, minScore));
  },
};
