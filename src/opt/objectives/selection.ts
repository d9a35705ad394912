/**
 * Choosing the best candidate, or the best k, under an ObjectiveConfig, as the reference's
 * `select_best` / `select_top_k` choose: `scalar` (or no config) takes numpy's argmax of the
 * scalar scores, `weighted` of the weighted sums; `pareto` takes the first front and breaks its
 * ties by weighted sum, by the metrics in name order, or by numpy's seeded RandomState. Ties
 * resolve exactly as numpy and Python's stable sorts resolve them, so a seed picks the same
 * candidate here as there.
 */
import type { ObjectiveConfig } from "./objective-config.js";
import { NumpyRandomState } from "./numpy-random-state.js";
import { numpyArgmax, numpyArgsortDescending } from "./numpy-order.js";
import { paretoRank } from "./pareto.js";
import { applyMinimize, compareCodePoints, toScalarScore, toScoreDict, weightedScalarize, type ScoreDict, type ScoreLike } from "./score-dicts.js";

export interface SelectionOptions {
  /**
   * Let −∞ through (a trainer's candidate whose example failed scores −∞ there): it then ranks
   * last. The reference's own check refuses it, which stops the run (a deliberate difference).
   */
  readonly allowNegativeInfinity?: boolean;
}

/** The score dicts of the candidates, minimized metrics negated. */
function normalizedDicts(scores: readonly ScoreLike[], config: ObjectiveConfig, options: SelectionOptions): ScoreDict[] {
  return scores.map((score) => applyMinimize(checked(score, options), config.minimize));
}

function checked(score: ScoreLike, options: SelectionOptions): ScoreDict {
  if (options.allowNegativeInfinity && typeof score === "object") {
    const finite = Object.fromEntries(Object.entries(score).map(([m, v]) => [m, v === Number.NEGATIVE_INFINITY ? 0 : v]));
    toScoreDict(finite);
    return { ...score };
  }
  return toScoreDict(score);
}

function weightedSums(dicts: readonly ScoreDict[], config: ObjectiveConfig): number[] {
  return dicts.map((dict) => weightedScalarize(dict, config.weights, config.missingValue));
}

/** Python's tuple comparison of two lists of floats. */
function compareTuples(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length;
}

/** The lexicographic key: the values of the metrics of the group's first candidate, in name order. */
function lexicographicKeys(dicts: readonly ScoreDict[], group: readonly number[], config: ObjectiveConfig): Map<number, number[]> {
  const metrics = Object.keys(dicts[group[0]!]!).sort(compareCodePoints);
  return new Map(group.map((i) => [i, metrics.map((m) => (Object.hasOwn(dicts[i]!, m) ? dicts[i]![m]! : config.missingValue))]));
}

/** `select_best`: the index of the best candidate. With no config every score must be a number. */
export function selectBest(scores: readonly ScoreLike[], config: ObjectiveConfig | null = null, options: SelectionOptions = {}): number {
  if (scores.length === 0) throw new RangeError("selectBest: no candidates");
  if (config === null || config.mode === "scalar") return numpyArgmax(scores.map((s) => toScalarScore(s, config)));
  const dicts = normalizedDicts(scores, config, options);
  if (config.mode === "weighted") return numpyArgmax(weightedSums(dicts, config));
  const ranks = paretoRank(dicts, config.paretoMetrics);
  const front = ranks.flatMap((rank, i) => (rank === 0 ? [i] : []));
  if (front.length === 1) return front[0]!;
  switch (config.tieBreak) {
    case "weighted":
      return front[numpyArgmax(weightedSums(front.map((i) => dicts[i]!), config))]!;
    case "lexicographic": {
      // Python's max(): the first of equal keys.
      const keys = lexicographicKeys(dicts, front, config);
      return front.reduce((best, i) => (compareTuples(keys.get(i)!, keys.get(best)!) > 0 ? i : best));
    }
    case "random_seeded":
      return front[new NumpyRandomState(config.seed).randint(front.length)]!;
  }
}

/** `select_top_k`: the indices of the best k candidates, best first. */
export function selectTopK(scores: readonly ScoreLike[], config: ObjectiveConfig | null = null, k = 1, options: SelectionOptions = {}): number[] {
  if (config === null || config.mode === "scalar") return numpyArgsortDescending(scores.map((s) => toScalarScore(s, config))).slice(0, Math.max(0, k));
  const dicts = normalizedDicts(scores, config, options);
  if (config.mode === "weighted") return numpyArgsortDescending(weightedSums(dicts, config)).slice(0, Math.max(0, k));
  const ranks = paretoRank(dicts, config.paretoMetrics);
  const result: number[] = [];
  const maxRank = Math.max(...ranks);
  for (let rank = 0; rank <= maxRank; rank++) {
    let group = ranks.flatMap((r, i) => (r === rank ? [i] : []));
    // Sorts below are stable and descending, as Python's sort(reverse=True) keeps equal keys in order.
    if (config.tieBreak === "weighted") {
      const sums = new Map(group.map((i) => [i, weightedScalarize(dicts[i]!, config.weights, config.missingValue)]));
      group = stableDescending(group, (a, b) => compareNumbers(sums.get(a)!, sums.get(b)!));
    } else if (config.tieBreak === "lexicographic") {
      if (group.length > 0) {
        const keys = lexicographicKeys(dicts, group, config);
        group = stableDescending(group, (a, b) => compareTuples(keys.get(a)!, keys.get(b)!));
      }
    } else {
      new NumpyRandomState(config.seed + rank).shuffle(group);
    }
    result.push(...group);
    if (result.length >= k) break;
  }
  return result.slice(0, Math.max(0, k));
}

function compareNumbers(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Largest first; equal keys keep their order (Array.prototype.sort is stable). */
function stableDescending(items: readonly number[], compare: (a: number, b: number) => number): number[] {
  return [...items].sort((a, b) => compare(b, a));
}
