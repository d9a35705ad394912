/**
 * How a multi-objective run chooses among candidates (OpenTrace `ObjectiveConfig`, experimental
 * branch): `scalar` keeps the single-score comparison, `weighted` ranks by a weighted sum,
 * `pareto` by non-dominated fronts with a tie-break. Metrics in `minimize` are negated first, so
 * every comparison below is "higher is better".
 */
import { pythonFloatRepr } from "../../codec/python-json.js";

export type ObjectiveMode = "scalar" | "weighted" | "pareto";
export type TieBreak = "weighted" | "lexicographic" | "random_seeded";
export type ScalarizeDict = "score" | "mean" | "weighted";

export interface ObjectiveConfig {
  readonly mode: ObjectiveMode;
  /** Per-metric weights, in the order given (a weighted sum adds them in this order); empty = 1.0 each. */
  readonly weights: Readonly<Record<string, number>>;
  /** Metrics where lower is better. */
  readonly minimize: ReadonlySet<string>;
  /** The value of a metric a candidate lacks. */
  readonly missingValue: number;
  /** The metrics dominance compares; null = every metric either candidate has. */
  readonly paretoMetrics: readonly string[] | null;
  readonly tieBreak: TieBreak;
  /** Seed of numpy's RandomState for `random_seeded` tie-breaks. */
  readonly seed: number;
  /** How `scalar` mode reduces a score dict. */
  readonly scalarizeDict: ScalarizeDict;
  readonly scoreKey: string;
}

/** A setting the reference rejects; the message is the reference's. */
export class ObjectiveConfigError extends Error {
  override readonly name = "ObjectiveConfigError";
}

export interface ObjectiveConfigInput {
  readonly mode?: string;
  readonly weights?: Readonly<Record<string, number>>;
  readonly minimize?: Iterable<string>;
  readonly missingValue?: number;
  readonly paretoMetrics?: readonly string[] | null;
  readonly tieBreak?: string;
  readonly seed?: number;
  readonly scalarizeDict?: string;
  readonly scoreKey?: string;
}

const MODES: readonly ObjectiveMode[] = ["scalar", "weighted", "pareto"];
const TIE_BREAKS: readonly TieBreak[] = ["weighted", "lexicographic", "random_seeded"];
const SCALARIZE: readonly ScalarizeDict[] = ["score", "mean", "weighted"];

/** An `ObjectiveConfig` with the reference's defaults and checks. */
export function objectiveConfig(input: ObjectiveConfigInput = {}): ObjectiveConfig {
  const mode = input.mode ?? "scalar";
  if (!(MODES as readonly string[]).includes(mode)) throw new ObjectiveConfigError(`mode must be 'scalar', 'weighted', or 'pareto', got '${mode}'`);
  const tieBreak = input.tieBreak ?? "weighted";
  if (!(TIE_BREAKS as readonly string[]).includes(tieBreak)) {
    throw new ObjectiveConfigError(`tie_break must be 'weighted', 'lexicographic', or 'random_seeded', got '${tieBreak}'`);
  }
  const scalarizeDict = input.scalarizeDict ?? "score";
  if (!(SCALARIZE as readonly string[]).includes(scalarizeDict)) {
    throw new ObjectiveConfigError(`scalarize_dict must be 'score', 'mean', or 'weighted', got '${scalarizeDict}'`);
  }
  const scoreKey = input.scoreKey ?? "score";
  if (typeof scoreKey !== "string" || scoreKey === "") throw new ObjectiveConfigError("score_key must be a non-empty string");
  const weights = input.weights ?? {};
  for (const [metric, weight] of Object.entries(weights)) {
    if (weight < 0) throw new ObjectiveConfigError(`Weight for '${metric}' must be non-negative, got ${pythonFloatRepr(weight)}`);
  }
  const paretoMetrics = input.paretoMetrics ?? null;
  if (paretoMetrics !== null && paretoMetrics.length === 0) throw new ObjectiveConfigError("pareto_metrics must be None (auto) or non-empty tuple");
  const seed = input.seed ?? 0;
  return Object.freeze({
    mode: mode as ObjectiveMode,
    weights: Object.freeze({ ...weights }),
    minimize: new Set(input.minimize ?? []),
    missingValue: input.missingValue ?? Number.NEGATIVE_INFINITY,
    paretoMetrics: paretoMetrics === null ? null : Object.freeze([...paretoMetrics]),
    tieBreak: tieBreak as TieBreak,
    seed,
    scalarizeDict: scalarizeDict as ScalarizeDict,
    scoreKey,
  });
}
