/**
 * Pareto dominance and non-dominated sorting over score dicts already in "higher is better" form
 * (after `applyMinimize`). A metric a candidate lacks counts as −∞ here, whatever `missing_value`
 * says, as in the reference.
 */
import { compareCodePoints, type ScoreDict } from "./score-dicts.js";

function valueOf(scores: ScoreDict, metric: string): number {
  return Object.hasOwn(scores, metric) ? scores[metric]! : Number.NEGATIVE_INFINITY;
}

/** `a` dominates `b`: at least as good on every metric and better on one (metrics: both dicts' when null). */
export function dominates(a: ScoreDict, b: ScoreDict, metrics: readonly string[] | null = null): boolean {
  const compared = metrics ?? [...new Set([...Object.keys(a), ...Object.keys(b)])].sort(compareCodePoints);
  let betterSomewhere = false;
  for (const metric of compared) {
    const va = valueOf(a, metric);
    const vb = valueOf(b, metric);
    if (va < vb) return false;
    if (va > vb) betterSomewhere = true;
  }
  return betterSomewhere;
}

/** Each candidate's front: 0 for the non-dominated, 1 for those dominated only by front 0, and so on. */
export function paretoRank(candidates: readonly ScoreDict[], metrics: readonly string[] | null = null): number[] {
  const ranks = new Array<number>(candidates.length).fill(0);
  let remaining = candidates.map((_, i) => i);
  for (let rank = 0; remaining.length > 0; rank++) {
    const front = remaining.filter((i) => !remaining.some((j) => j !== i && dominates(candidates[j]!, candidates[i]!, metrics)));
    for (const i of front) ranks[i] = rank;
    remaining = remaining.filter((i) => !front.includes(i));
  }
  return ranks;
}
