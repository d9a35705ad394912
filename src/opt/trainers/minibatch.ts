/**
 * Minibatch / MinibatchAlgorithm (algorithms reference §3.1): for every minibatch of the train
 * set, run the agent, show the optimizer the batched outputs and feedback, take its update, and
 * (with `ensure_improvement`) keep the update only if the same minibatch does not score worse.
 *
 * Readings of the reference, deliberately:
 * - The improvement check rejects ties, as the reference does: an update is kept only when its
 *   minibatch score is above the old one minus `improvement_threshold` (the reference rejects
 *   `new <= old − t`; so with 0/1 scores a perfect batch blocks every update, quirk 4; parity
 *   scenario minibatch-ensure-improvement, run tie_accept_tie).
 * - Deliberate difference: an update whose check has no score (every example of the batch
 *   failed) is rejected. The reference compares NaN, which is never `<=`, so it accepts the
 *   update (run all_crash_check) and keeps a value that crashes everywhere.
 * - The reference's test-set evaluations (`test_dataset`, `test_frequency`, …) only feed its
 *   logger; the engine scores the job itself, so they are accepted and not run. Saving and
 *   logging kwargs are accepted and ignored too.
 * - The forward pass scores a failing example 0 (`standard_optimization_step`'s `min_score=0`);
 *   the improvement check averages the examples that have a score (the reference's
 *   `Minibatch.evaluate`), a failing example scoring `min_score` when that kwarg is set.
 *
 * BasicSearchAlgorithm is this loop with a different update step (basic-search.ts).
 */
import { DataLoader } from "../data-loader.js";
import type { ParameterValues } from "../../domain/parameter.js";
import { examplesOf, meanScore, safeMeanScore, type Rollout } from "../rollout.js";
import type { Trainer, TrainerContext, TrainerResult } from "../trainer.js";
import { kwargReader, threadsOf, type KwargReader } from "./classic-kwargs.js";
import { BestScore, proposeMany, sameValues, usableUpdate, withUpdate } from "./classic-search.js";

/** Kwargs of Minibatch's `train` beyond the common list (saving/logging/test ones are accepted, unused). */
export const MINIBATCH_KWARGS = [
  "num_epochs",
  "batch_size",
  "ensure_improvement",
  "improvement_threshold",
  "test_frequency",
  "num_test_samples",
  "log_frequency",
  "save_frequency",
  "save_path",
  "min_score",
] as const;

/** One step's update rule: what the minibatch loop asks for after the forward pass. */
export interface MinibatchUpdateRule {
  /** The values to move to (the current ones when nothing should change). */
  propose(values: ParameterValues, rollouts: readonly Rollout[], step: number): Promise<ParameterValues>;
  /** The improvement check rejected the values `propose` returned. */
  rejected?(): void;
  /** The score a step reports for the values it ends with (default: the minibatch score). */
  reportedScore?(minibatch: MinibatchOutcome): number | null;
  /** The per-metric means reported with the step (a multi-objective guide's, see reportedMetricScores). */
  reportedScores?(): Readonly<Record<string, number>> | undefined;
}

export interface MinibatchOutcome {
  /** Minibatch score of the values the step started with. */
  readonly before: number | null;
  /** Minibatch score of the new values, when the improvement check measured it. */
  readonly after?: number | null;
  readonly accepted: boolean;
}

export interface MinibatchSettings {
  readonly ensureImprovement: boolean;
  readonly improvementThreshold: number;
  readonly numEpochs: number;
  readonly batchSize: number;
  /** What a failing example scores in the improvement check (null: it is left out). */
  readonly checkMinScore: number | null;
}

export function minibatchSettings(k: KwargReader): MinibatchSettings {
  return {
    ensureImprovement: k.bool("ensure_improvement", true),
    improvementThreshold: k.number("improvement_threshold", 0),
    numEpochs: k.int("num_epochs", 1, 0),
    batchSize: k.int("batch_size", 1, 1),
    checkMinScore: k.optionalNumber("min_score", null),
  };
}

/** The reference's check: keep the update only when `after > before − threshold` (ties are rejected). */
export function improves(before: number | null, after: number | null, threshold: number): boolean {
  if (after === null || Number.isNaN(after)) return false;
  if (before === null) return true;
  return after > before - threshold;
}

/** The minibatch loop of `Minibatch.train`, with the update step supplied by `rule`. */
export async function runMinibatchLoop(context: TrainerContext, settings: MinibatchSettings, rule: MinibatchUpdateRule): Promise<TrainerResult> {
  const loader = new DataLoader(examplesOf(context.train), settings.batchSize, context.rng);
  const best = new BestScore();
  let values = context.initialValues;
  let step = 0;
  for (let epoch = 0; epoch < settings.numEpochs; epoch++) {
    for (let batch = loader.next(); batch !== null; batch = loader.next()) {
      context.signal.throwIfAborted();
      step += 1;
      const rollouts = await context.rollout(values, batch, { minScore: 0 });
      const before = meanScore(rollouts);
      const proposed = await rule.propose(values, rollouts, step);
      let outcome: MinibatchOutcome = { before, accepted: false };
      if (!sameValues(proposed, values)) {
        if (settings.ensureImprovement) {
          const check = await context.rollout(proposed, batch, { minScore: settings.checkMinScore });
          const after = safeMeanScore(check);
          const accepted = improves(before, after, settings.improvementThreshold);
          outcome = { before, after, accepted };
          if (accepted) values = proposed;
          else {
            context.note(`step ${step}: update rejected (minibatch score ${after ?? "invalid"} ≤ ${before} − ${settings.improvementThreshold})`);
            rule.rejected?.();
          }
        } else {
          values = proposed;
          outcome = { before, accepted: true };
        }
      }
      const score = rule.reportedScore ? rule.reportedScore(outcome) : outcome.accepted && outcome.after !== undefined ? outcome.after : outcome.before;
      const scores = rule.reportedScores?.();
      context.emit({ step, score, best_score: best.offer(score), values, ...(scores !== undefined ? { scores } : {}) });
    }
  }
  return { values };
}

/** MinibatchAlgorithm's update: one optimizer call on the batched feedback, applied as proposed. */
export function singleProposalRule(context: TrainerContext): MinibatchUpdateRule {
  const optimizer = context.createOptimizer();
  const threads = threadsOf(context.kwargs);
  return {
    async propose(values, rollouts, step) {
      const [proposal] = await proposeMany(optimizer, context.problem(values, rollouts), 1, threads, context.signal);
      const update = usableUpdate(context, proposal!, `step ${step}`);
      return update === null ? values : withUpdate(values, update);
    },
  };
}

function minibatchTrainerFor(id: string): Trainer {
  return {
    id,
    kwargs: MINIBATCH_KWARGS,
    train(context) {
      const settings = minibatchSettings(kwargReader(id, context.kwargs));
      return runMinibatchLoop(context, settings, singleProposalRule(context));
    },
  };
}

export const minibatchAlgorithmTrainer: Trainer = minibatchTrainerFor("MinibatchAlgorithm");

/** `Minibatch` names the same algorithm (in OpenTrace the abstract base of MinibatchAlgorithm). */
export const minibatchTrainer: Trainer = minibatchTrainerFor("Minibatch");
