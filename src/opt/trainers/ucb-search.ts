/**
 * UCBSearchAlgorithm (algorithms reference §3.5). A buffer of at most `max_buffer_size`
 * candidates, each with a score sum and an evaluation count. The initial values are scored on
 * `evaluation_batch_size` random validation examples. Every iteration picks the candidate `a`
 * with the highest UCB = mean + `ucb_exploration_factor`·√(ln T / n) (n = 0 → +∞; T counts every
 * evaluation so far), runs it on `train_batch_size` random train examples, asks the optimizer for
 * one proposal a′ on that feedback, scores a′ on a fresh validation sample, credits `a` with its
 * train-batch score, and adds a′ (evicting the lowest-UCB candidate when the buffer is full).
 * The result is the candidate with the highest mean.
 *
 * Each iteration emits the new candidate's score (null when there is none) and, as values and
 * best_score, the candidate with the highest mean so far: what the search would return now.
 *
 * Readings of the reference, deliberately:
 * - An empty proposal (unreadable reply, TERMINATE) is dropped with a note, and the iteration
 *   adds no candidate; the reference would add a copy of `a` instead.
 * - A proposal changing some parameters keeps `a`'s values for the others (the reference stores
 *   the partial update, which later applies on top of whatever values were loaded last).
 * - A candidate whose scoring failed (−∞) counts as unvisited (n = 0) instead of a mean of 0,
 *   and is chosen as the result only when nothing else was scored.
 * - Validation samples come from the task's validate set when it has one (the reference's kwarg
 *   is `validation_dataset`, which Trace-Bench never sets), else from the train set.
 * - `min_score_for_agent_update` is what a failing validation example scores (default: none,
 *   which makes the candidate −∞). Logging/saving kwargs are accepted and not used.
 */
import { sampleWithoutReplacement } from "../data-loader.js";
import type { ParameterValues } from "../../domain/parameter.js";
import { examplesOf, safeMeanScore } from "../rollout.js";
import type { Trainer } from "../trainer.js";
import { kwargReader, threadsOf } from "./classic-kwargs.js";
import { argmaxFirst, proposeMany, reportable, usableUpdate, validationExamples, validationScore, withUpdate } from "./classic-search.js";

const ID = "UCBSearchAlgorithm";

export const UCB_SEARCH_KWARGS = [
  "max_buffer_size",
  "ucb_exploration_factor",
  "validation_dataset",
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
    const validate = validationExamples(context);
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
      const update = usableUpdate(context, proposal!, `iteration ${iteration}`);
      let newScore: number | null = null;
      let added: BufferEntry | null = null;
      if (update !== null) {
        const values = withUpdate(a.values, update);
        const scored = await evaluate(values);
        newScore = reportable(scored.score);
        if (scored.score > -Infinity) added = entryFor(values, scored);
        else context.note(`iteration ${iteration}: the new candidate has no valid score; not added`);
      }
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
