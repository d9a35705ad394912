/**
 * UCBSearchAlgorithm (algorithms reference §3.5). A buffer of at most `max_buffer_size`
 * candidates, each with a score sum and an evaluation count. The initial values are scored on
 * `evaluation_batch_size` random validation examples. Every iteration picks the candidate `a`
 * with the highest UCB = mean + `ucb_exploration_factor`·√(ln T / n) (n = 0 → +∞; T counts every
 * evaluation so far, training-batch ones included), runs it on `train_batch_size` random train
 * examples, asks the optimizer for one proposal a′ on that feedback, scores a′ on a fresh
 * validation sample, credits `a` with its train-batch score, and adds a′ (evicting the
 * lowest-UCB candidate when the buffer is full). The result is the candidate with the highest mean.
 *
 * Each iteration emits the new candidate's score (null when there is none) and, as values and
 * best_score, the candidate with the highest mean so far: what the search would return now.
 *
 * As the reference (parity scenario ucbsearch):
 * - Validation samples come from the train set. The reference's kwarg is `validation_dataset`,
 *   which Trace-Bench never sets, so a task's validate set is not used (run
 *   harness_validate_set_and_constructor_kwargs: the guide never sees the validate input). As a
 *   trainer param it is refused (datasets come from the task), not silently ignored.
 * - An empty proposal (TERMINATE, an unreadable reply) makes a′ a copy of `a`'s values; it is
 *   scored and added like any other candidate.
 *
 * Readings of the reference, deliberately:
 * - `max_buffer_size` and `ucb_exploration_factor` are honoured as trainer kwargs. The reference
 *   reads them only in its constructor, and Trace-Bench passes trainer params to `train()`, where
 *   they are ignored (it runs with 10 and 1.0 whatever the config says). A run that sets them is
 *   therefore not comparable with the Python harness (`validate` should say so: issue 13).
 * - A proposal changing some parameters keeps `a`'s values for the others. The reference stores
 *   the partial update, which later applies on top of whatever values were loaded last, so its
 *   final agent can differ from its best candidate (run partial_update_dicts: it ends at a=1, b=5,
 *   mean −1, while reporting the best score 0 of a=3, b=5; we end at a=3, b=5).
 * - A candidate whose scoring failed (−∞) counts as unvisited (n = 0) instead of a mean of 0 over
 *   its n examples, and is chosen as the result only when nothing else was scored. (Run
 *   initial_candidate_crashes ends the same: crashed training rollouts score 0, which then gives
 *   the crashing initial values mean 0.)
 * - `min_score_for_agent_update` is what a failing validation example scores (default: none,
 *   which makes the candidate −∞). Logging/saving kwargs are accepted and not used.
 */
import { sampleWithoutReplacement } from "../data-loader.js";
import type { ParameterValues } from "../../domain/parameter.js";
import { examplesOf, safeMeanScore } from "../rollout.js";
import type { Trainer } from "../trainer.js";
import { kwargReader, threadsOf } from "./classic-kwargs.js";
import { argmaxFirst, proposeMany, reportable, usableUpdate, validationScore, withUpdate } from "./classic-search.js";

const ID = "UCBSearchAlgorithm";

export const UCB_SEARCH_KWARGS = [
  "num_search_iterations",
  "train_batch_size",
  "max_buffer_size",
  "ucb_exploration_factor",
  "evaluation_batch_size",
  "eval_frequency",
  "test_frequency",
  "log_frequency",
  "save_frequency",
  "save_path",
  "min_score_for_agent_update",
] as const;

interface BufferEntry {
  readonly values: ParameterValues;
  scoreSum: number;
  evalCount: number;
}

const meanOf = (entry: BufferEntry) => (entry.evalCount > 0 ? entry.scoreSum / entry.evalCount : -Infinity);

export function ucbScore(entry: { readonly scoreSum: number; readonly evalCount: number }, totalEvaluations: number, factor: number): number {
  if (entry.evalCount === 0) return Infinity;
  const t = totalEvaluations === 0 ? 1 : totalEvaluations;
  return entry.scoreSum / entry.evalCount + factor * Math.sqrt(Math.log(t) / entry.evalCount);
}

export const ucbSearchTrainer: Trainer = {
  id: ID,
  kwargs: UCB_SEARCH_KWARGS,
  async train(context) {
    const k = kwargReader(ID, context.kwargs);
    const maxBufferSize = k.int("max_buffer_size", 10, 1);
    const factor = k.number("ucb_exploration_factor", 1.0);
    const iterations = k.int("num_search_iterations", 100, 0);
    const trainBatchSize = k.int("train_batch_size", 2, 1);
    const evaluationBatchSize = k.int("evaluation_batch_size", 20, 1);
    const minScore = k.optionalNumber("min_score_for_agent_update", null);
    const threads = threadsOf(context.kwargs);
    const train = examplesOf(context.train);
    const validate = train;
    if (train.length === 0) throw new Error(`${ID}: the train set has no examples`);

    const optimizer = context.createOptimizer();
    let total = 0;
    const evaluate = async (values: ParameterValues): Promise<{ score: number; count: number }> => {
      const sample = sampleWithoutReplacement(validate, evaluationBatchSize, context.rng);
      const score = await validationScore(context, values, sample, minScore);
      total += sample.length;
      return { score, count: sample.length };
    };
    const entryFor = (values: ParameterValues, scored: { score: number; count: number }): BufferEntry =>
      scored.score > -Infinity ? { values, scoreSum: scored.score * scored.count, evalCount: scored.count } : { values, scoreSum: 0, evalCount: 0 };
    const bestEntry = () => buffer[argmaxFirst(buffer, meanOf)]!;

    const buffer: BufferEntry[] = [entryFor(context.initialValues, await evaluate(context.initialValues))];
    for (let iteration = 1; iteration <= iterations; iteration++) {
      context.signal.throwIfAborted();
      const a = buffer[argmaxFirst(buffer, (c) => ucbScore(c, total, factor))]!;
      const batch = sampleWithoutReplacement(train, trainBatchSize, context.rng);
      const rollouts = await context.rollout(a.values, batch, { minScore: 0 });
      const trainScore = safeMeanScore(rollouts);
      const [proposal] = await proposeMany(optimizer, context.problem(a.values, rollouts), 1, threads, context.signal);
      const update = usableUpdate(context, proposal!, `iteration ${iteration}`, "a copy of the selected candidate is scored instead");
      // An empty proposal leaves the selected values as they are: a′ is their copy.
      const values = update === null ? { ...a.values } : withUpdate(a.values, update);
      const scored = await evaluate(values);
      const newScore = reportable(scored.score);
      let added: BufferEntry | null = null;
      if (scored.score > -Infinity) added = entryFor(values, scored);
      else context.note(`iteration ${iteration}: the new candidate has no valid score; not added`);
      if (trainScore !== null && Number.isFinite(trainScore)) {
        a.scoreSum += trainScore * batch.length;
        a.evalCount += batch.length;
        total += batch.length;
      }
      if (added !== null) {
        if (buffer.length >= maxBufferSize) buffer.splice(argmaxFirst(buffer, (c) => -ucbScore(c, total, factor)), 1);
        buffer.push(added);
      }
      const best = bestEntry();
      context.emit({ step: iteration, score: newScore, best_score: reportable(meanOf(best)), values: best.values });
    }
    return { values: bestEntry().values };
  },
};
