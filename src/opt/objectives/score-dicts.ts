/**
 * Score dicts (one number per named metric) and their reductions, as OpenTrace's objectives
 * compute them: a plain score is `{score: x}`, minimized metrics are negated, a weighted sum adds
 * `weight × value` in the weights' order (a weighted metric a candidate lacks counts as
 * `missing_value`, −∞ by default), and a candidate's score over several examples is the
 * per-metric mean.
 */
import { pythonFloatRepr } from "../../codec/python-json.js";
import { ObjectiveConfigError, type ObjectiveConfig } from "./objective-config.js";
import { numpyMean } from "./numpy-order.js";

export type ScoreDict = Readonly<Record<string, number>>;
/** What a guide or a trainer holds as a candidate's score: one number, or one per metric. */
export type ScoreLike = number | boolean | ScoreDict;

/** A score the objectives cannot use (not finite, empty). */
export class ScoreError extends Error {
  override readonly name = "ScoreError";
}

function pythonRepr(value: unknown): string {
  return typeof value === "number" ? pythonFloatRepr(value).replace("Infinity", "inf").replace("NaN", "nan") : String(value);
}

/** `to_score_dict`: a number (or boolean) becomes `{score: x}`; a dict must be non-empty and finite. */
export function toScoreDict(score: ScoreLike): ScoreDict {
  if (typeof score === "boolean") return { score: score ? 1 : 0 };
  if (typeof score === "number") {
    if (!Number.isFinite(score)) throw new ScoreError(`Score must be finite, got ${pythonRepr(score)}`);
    return { score };
  }
  const entries = Object.entries(score);
  if (entries.length === 0) throw new ScoreError("Score dict must not be empty");
  for (const [metric, value] of entries) {
    if (typeof value !== "number" || !Number.isFinite(value)) throw new ScoreError(`Score dict value for '${metric}' must be finite float, got ${pythonRepr(value)}`);
  }
  return { ...score };
}

/** `apply_minimize`: the same dict with every minimized metric negated (higher is better after). */
export function applyMinimize(scores: ScoreDict, minimize: ReadonlySet<string>): ScoreDict {
  return Object.fromEntries(Object.entries(scores).map(([metric, value]) => [metric, minimize.has(metric) ? -value : value]));
}

/** `weighted_scalarize`: Σ weight × value over the weights (each present metric 1.0 when there are none). */
export function weightedScalarize(scores: ScoreDict, weights: ScoreDict, missingValue = Number.NEGATIVE_INFINITY): number {
  const used = Object.keys(weights).length > 0 ? weights : Object.fromEntries(Object.keys(scores).map((metric) => [metric, 1]));
  let total = 0;
  for (const [metric, weight] of Object.entries(used)) total += weight * (Object.hasOwn(scores, metric) ? scores[metric]! : missingValue);
  return total;
}

/** `score_dict_to_scalar`: minimize, then reduce as `scalarize_dict` says. */
export function scoreDictToScalar(scores: ScoreDict, config: ObjectiveConfig): number {
  const normalized = applyMinimize(toScoreDict(scores), config.minimize);
  if (config.scalarizeDict === "score") {
    if (!Object.hasOwn(normalized, config.scoreKey)) {
      throw new ObjectiveConfigError(
        `Dict score missing key '${config.scoreKey}'. Either include it, or set ObjectiveConfig.scalarize_dict to 'mean' or 'weighted'.`,
      );
    }
    return normalized[config.scoreKey]!;
  }
  if (config.scalarizeDict === "mean") return numpyMean(Object.values(normalized));
  return weightedScalarize(normalized, config.weights, config.missingValue);
}

/** `to_scalar_score`: a number passes through; a dict needs a config to say how to reduce it. */
export function toScalarScore(score: ScoreLike, config: ObjectiveConfig | null): number {
  if (typeof score === "object") {
    if (config === null) {
      throw new ObjectiveConfigError(
        "Dict score encountered but ObjectiveConfig is None. Pass ObjectiveConfig(mode='scalar', scalarize_dict=...) to define reduction.",
      );
    }
    return scoreDictToScalar(score, config);
  }
  return typeof score === "boolean" ? (score ? 1 : 0) : score;
}

/** `aggregate_score_dicts`: the per-metric mean over examples, metrics in sorted order, each over the dicts that have it. */
export function aggregateScoreDicts(dicts: readonly ScoreDict[]): ScoreDict {
  const metrics = new Set<string>();
  for (const dict of dicts) for (const metric of Object.keys(dict)) metrics.add(metric);
  const result: Record<string, number> = {};
  for (const metric of [...metrics].sort(compareCodePoints)) {
    const values = dicts.flatMap((dict) => (Object.hasOwn(dict, metric) && dict[metric] !== null && dict[metric] !== undefined ? [dict[metric]!] : []));
    if (values.length > 0) result[metric] = numpyMean(values);
  }
  return result;
}

/** Python's `sorted` order of names (UTF-16 units: code point order for every name without astral characters). */
export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
