/**
 * What the classic OpenTrace trainers share: asking one optimizer for several proposals on the
 * same problem (the reference's parallel `step(bypassing=True)` calls), turning a proposal into
 * candidate values (or dropping it, with a note), and scoring candidates the way the reference
 * averages.
 */
import { mapBounded } from "../bounded.js";
import type { Optimizer, Proposal } from "../optimizer.js";
import type { ParameterValues } from "../../domain/parameter.js";
import type { ProblemInstance } from "../problem.js";
import { examplesOf, meanScore, type Example } from "../rollout.js";
import type { TrainerContext } from "../trainer.js";
import type { ScoreDict } from "../objectives/score-dicts.js";
import { candidateScoreDict } from "../objectives/trainer-objective.js";

/**
 * `count` proposals for one problem, in order, all from `optimizer`, as the reference's
 * `step(bypassing=True)` calls on one optimizer: each call adds the problem to its memory, so
 * proposal i's prompt carries the i earlier ones (parity scenarios basicsearch-memory and
 * beamsearch: memory rounds 0, 1, 2, …). An optimizer records a problem when it builds the
 * prompt, before its LLM call, and calls start in order, so this holds whatever order concurrent
 * calls (`concurrency` > 1) complete in.
 */
export async function proposeMany(optimizer: Optimizer, problem: ProblemInstance, count: number, concurrency: number, signal: AbortSignal): Promise<Proposal[]> {
  if (count <= 0) return [];
  return mapBounded(
    Array.from({ length: count }, (_, i) => i),
    () => optimizer.propose(problem, signal),
    concurrency,
    signal,
  );
}

/**
 * The values a proposal changes, or null when it changes none (an unreadable reply, TERMINATE,
 * only unknown names): such a proposal is dropped, as the reference skips empty update dicts.
 * Whatever the optimizer could not read is recorded as a note of the current step.
 */
export function usableUpdate(context: Pick<TrainerContext, "note">, proposal: Proposal, label: string, instead = "proposal dropped"): ParameterValues | null {
  if (Object.keys(proposal.update).length > 0) {
    for (const note of proposal.notes) context.note(`${label}: ${note}`);
    return proposal.update;
  }
  const why = proposal.notes.length > 0 ? proposal.notes.join("; ") : proposal.terminated ? "the optimizer answered TERMINATE" : "the optimizer proposed no change";
  context.note(`${label}: no update (${why}); ${instead}`);
  return null;
}

/** The current values with a proposal's changes (parameters it does not name keep their values). */
export function withUpdate(values: ParameterValues, update: ParameterValues): ParameterValues {
  return { ...values, ...update };
}

export function sameValues(a: ParameterValues, b: ParameterValues): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) return false;
  return true;
}

/**
 * Mean score of `values` on `examples`, −∞ when any example has no score (the reference's
 * `np.mean(scores) if all(s is not None) else -np.inf`). `minScore` is what a failing example
 * scores (null: it has none, which makes the whole candidate −∞).
 */
export async function validationScore(context: TrainerContext, values: ParameterValues, examples: readonly Example[], minScore: number | null): Promise<number> {
  return (await validationScores(context, values, examples, minScore)).score;
}

export interface ValidationScores {
  /** The mean score (−∞ when any example has none). */
  readonly score: number;
  /** The per-metric means of the examples' score dicts (an objective selects on these). */
  readonly scores: ScoreDict;
}

/** `validationScore` and the candidate's score dict, from one evaluation. */
export async function validationScores(context: TrainerContext, values: ParameterValues, examples: readonly Example[], minScore: number | null): Promise<ValidationScores> {
  const rollouts = await context.rollout(values, examples, { minScore });
  const mean = meanScore(rollouts);
  return { score: mean === null || Number.isNaN(mean) ? -Infinity : mean, scores: candidateScoreDict(rollouts, minScore) };
}

/** A score as events carry it: −∞ (an invalid candidate) and NaN become null. */
export function reportable(score: number | null | undefined): number | null {
  return typeof score === "number" && Number.isFinite(score) ? score : null;
}

/** Tracks the best reportable score of a run. */
export class BestScore {
  private best: number | null = null;

  offer(score: number | null | undefined): number | null {
    const value = reportable(score);
    if (value !== null && (this.best === null || value > this.best)) this.best = value;
    return this.best;
  }

  get value(): number | null {
    return this.best;
  }
}

/** Index of the first maximum (Python's `max` keeps the first of equal keys). */
export function argmaxFirst<T>(items: readonly T[], key: (item: T) => number): number {
  let best = -1;
  let bestKey = -Infinity;
  for (const [i, item] of items.entries()) {
    const k = key(item);
    if (best < 0 || k > bestKey) {
      best = i;
      bestKey = k;
    }
  }
  return best;
}

/** The validation examples: the bundle's validate set when it has examples, else the train set. */
export function validationExamples(context: Pick<TrainerContext, "validate" | "train">): Example[] {
  const validate = context.validate ? examplesOf(context.validate) : [];
  return validate.length > 0 ? validate : examplesOf(context.train);
}
