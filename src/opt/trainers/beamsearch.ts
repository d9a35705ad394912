/**
 * BeamsearchAlgorithm (algorithms reference §3.3). Starting from the initial values, each depth
 * expands every beam (a forward pass on `batch_size` random train examples, then `num_proposals`
 * proposals on that feedback; the beam itself stays a candidate), scores all candidates on one
 * random validation minibatch of `validation_dataset_size` examples drawn for the depth, and keeps
 * the `beam_width` best. After the last depth the remaining beams are scored on the full validate
 * set (the train set when the task has none) and the best is returned.
 *
 * Each depth emits one iteration (the depth's best beam and its minibatch score); the final
 * selection emits one more, at step `max_depth + 1`, as the reference logs 'Final validation
 * score' there, so its evaluations are counted like the others.
 *
 * As the reference (parity scenario beamsearch): one optimizer serves the whole run, its proposals
 * made one after another, so each prompt's memory carries every earlier expansion.
 *
 * Readings of the reference, deliberately:
 * - Equal scores keep candidate order (Python's stable sort), so on ties earlier proposals and
 *   earlier beams win; candidates are not de-duplicated.
 * - `validation_dataset_size: null` means min(10, |validate|).
 * - Test-set, saving and logging kwargs are accepted and not used; `validate_guide` is accepted,
 *   validation uses the task's guide.
 * - `objective_config` (weighted or Pareto) ranks the candidates of a depth by their per-metric
 *   means on the minibatch (the reference's `select_top_k`, whose order the kept beams take) and
 *   picks the final beam on the full validate set with `select_best`.
 *
 * BeamsearchHistoryAlgorithm reuses this loop (beamsearch-history.ts).
 */
import { sampleWithoutReplacement } from "../data-loader.js";
import type { ParameterValues } from "../../domain/parameter.js";
import type { ProblemInstance } from "../problem.js";
import { examplesOf, type Example } from "../rollout.js";
import type { Trainer, TrainerContext, TrainerResult } from "../trainer.js";
import { kwargReader, threadsOf } from "./classic-kwargs.js";
import type { ObjectiveConfig } from "../objectives/objective-config.js";
import type { ScoreDict } from "../objectives/score-dicts.js";
import { bestByObjective, reportedMetricScores, selectionObjective, topKByObjective } from "../objectives/trainer-objective.js";
import { argmaxFirst, BestScore, proposeMany, reportable, usableUpdate, validationExamples, validationScores } from "./classic-search.js";

export const BEAMSEARCH_KWARGS = [
  "num_proposals",
  "batch_size",
  "objective_config",
  "validate_guide",
  "validation_dataset_size",
  "beam_width",
  "max_depth",
  "test_frequency",
  "log_frequency",
  "save_frequency",
  "save_path",
  "min_score",
] as const;

export interface ScoredCandidate {
  readonly values: ParameterValues;
  readonly score: number;
  /** Per-metric means (what an objective ranks by). */
  readonly scores?: ScoreDict;
}

/** What BeamsearchHistory changes in the loop. */
export interface BeamsearchVariant {
  readonly id: string;
  readonly defaultNumProposals: number;
  /** What a failing validation example scores when `min_score` is not given (null: none). */
  readonly defaultMinScore: number | null;
  /** The problem shown to the optimizer when expanding a beam. */
  problem?(problem: ProblemInstance): ProblemInstance;
  /** The beams a depth kept, with their minibatch scores. */
  selected?(beams: readonly ScoredCandidate[]): void;
}

/**
 * Keep everything when there are at most `width` candidates, else the `width` best (stable), or
 * the `width` first of the objective's ranking.
 */
export function topCandidates(candidates: readonly ScoredCandidate[], width: number, objective: ObjectiveConfig | null = null): ScoredCandidate[] {
  if (candidates.length <= width) return [...candidates];
  if (objective !== null) return topKByObjective(candidates.map(scoreDictOf), objective, width).map((i) => candidates[i]!);
  return candidates
    .map((candidate, index) => ({ candidate, index }))
    .sort((a, b) => (b.candidate.score === a.candidate.score ? a.index - b.index : b.candidate.score > a.candidate.score ? 1 : -1))
    .slice(0, width)
    .map((entry) => entry.candidate);
}

function scoreDictOf(candidate: ScoredCandidate): ScoreDict {
  return candidate.scores ?? { score: candidate.score };
}

/** The index of the best candidate: the first highest mean, or the objective's pick. */
export function bestCandidate(candidates: readonly ScoredCandidate[], objective: ObjectiveConfig | null): number {
  return objective === null ? argmaxFirst(candidates, (c) => c.score) : bestByObjective(candidates.map(scoreDictOf), objective);
}

/**
 * A proposal completed with the beam's other values, keyed in the reference's dict order: the
 * returned parameters first, then the beam's others (BeamsearchHistory lists entries in it).
 */
function proposalCandidate(beam: ParameterValues, update: ParameterValues): ParameterValues {
  // Spreading `update` again puts its values back over the beam's without moving its keys.
  return { ...update, ...beam, ...update };
}

export async function runBeamsearch(context: TrainerContext, variant: BeamsearchVariant): Promise<TrainerResult> {
  const k = kwargReader(variant.id, context.kwargs);
  const beamWidth = k.int("beam_width", 3, 1);
  const numProposals = k.int("num_proposals", variant.defaultNumProposals, 0);
  const maxDepth = k.int("max_depth", 2, 0);
  const batchSize = k.int("batch_size", 1, 1);
  const minScore = k.optionalNumber("min_score", variant.defaultMinScore);
  const threads = threadsOf(context.kwargs);
  const train = examplesOf(context.train);
  const validate = validationExamples(context);
  const validationSize = k.optionalInt("validation_dataset_size", 5, 1) ?? Math.min(10, validate.length);
  if (train.length === 0) throw new Error(`${variant.id}: the train set has no examples`);

  const objective = selectionObjective(context.kwargs);
  const optimizer = context.createOptimizer();
  const best = new BestScore();
  const scoreAll = async (candidates: readonly ParameterValues[], examples: readonly Example[]): Promise<ScoredCandidate[]> => {
    const scored: ScoredCandidate[] = [];
    for (const values of candidates) scored.push({ values, ...(await validationScores(context, values, examples, minScore)) });
    return scored;
  };

  let beams: ParameterValues[] = [context.initialValues];
  for (let depth = 1; depth <= maxDepth; depth++) {
    context.signal.throwIfAborted();
    const validationBatch = sampleWithoutReplacement(validate, validationSize, context.rng);
    const candidates: ParameterValues[] = [];
    for (const [b, beam] of beams.entries()) {
      const batch = sampleWithoutReplacement(train, batchSize, context.rng);
      const rollouts = await context.rollout(beam, batch, { minScore: 0 });
      const plain = context.problem(beam, rollouts);
      const problem = variant.problem ? variant.problem(plain) : plain;
      const proposals = await proposeMany(optimizer, problem, numProposals, threads, context.signal);
      for (const [i, proposal] of proposals.entries()) {
        const update = usableUpdate(context, proposal, `depth ${depth}, beam ${b + 1}, proposal ${i + 1}`);
        if (update !== null) candidates.push(proposalCandidate(beam, update));
      }
      candidates.push(beam);
    }
    const kept = topCandidates(await scoreAll(candidates, validationBatch), beamWidth, objective);
    beams = kept.map((c) => c.values);
    variant.selected?.(kept);
    const top = kept[bestCandidate(kept, objective)]!;
    const score = reportable(top.score);
    const scores = reportedMetricScores(top.scores);
    context.emit({ step: depth, score, best_score: best.offer(score), values: top.values, ...(scores !== undefined ? { scores } : {}) });
  }

  context.signal.throwIfAborted();
  const finalists = await scoreAll(beams, validate);
  const chosen = objective === null ? topCandidates(finalists, 1)[0] : finalists[bestCandidate(finalists, objective)];
  const score = reportable(chosen!.score);
  const scores = reportedMetricScores(chosen!.scores);
  context.emit({ step: maxDepth + 1, score, best_score: best.offer(score), values: chosen!.values, ...(scores !== undefined ? { scores } : {}) });
  return { values: chosen!.values };
}

export const beamsearchTrainer: Trainer = {
  id: "BeamsearchAlgorithm",
  kwargs: BEAMSEARCH_KWARGS,
  train: (context) => runBeamsearch(context, { id: "BeamsearchAlgorithm", defaultNumProposals: 4, defaultMinScore: null }),
};
