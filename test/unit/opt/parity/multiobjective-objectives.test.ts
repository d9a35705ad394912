/**
 * Parity scenario multiobjective-objectives (test/fixtures/parity/multiobjective-objectives.json):
 * what OpenTrace's objectives return on 17 score sets under 11 configs. Every recorded case is
 * checked: the best pick and every top-k (ties as numpy resolves them, random_seeded through
 * numpy's RandomState), the minimized dicts and weighted sums, Pareto ranks, the dominance matrix,
 * the per-metric aggregate, and the recorded errors with their messages.
 */
import { describe, expect, it } from "vitest";
import { objectiveConfig, type ObjectiveConfig } from "../../../../src/opt/objectives/objective-config.js";
import { dominates, paretoRank } from "../../../../src/opt/objectives/pareto.js";
import {
  aggregateScoreDicts,
  applyMinimize,
  scoreDictToScalar,
  toScoreDict,
  weightedScalarize,
  type ScoreDict,
  type ScoreLike,
} from "../../../../src/opt/objectives/score-dicts.js";
import { selectBest, selectTopK } from "../../../../src/opt/objectives/selection.js";
import { parityFixture } from "../../../support/parity.js";

type Float = number | "-inf" | "inf" | "nan";
type Outcome<T> = { value: T } | { raises: string; message: string };
interface RecordedConfig {
  mode: string;
  weights: Record<string, number>;
  minimize: string[];
  missing_value: Float;
  pareto_metrics: string[] | null;
  tie_break: string;
  seed: number;
  scalarize_dict: string;
  score_key: string;
}
interface RecordedResult {
  config: RecordedConfig;
  select_best: Outcome<number>;
  select_top_k: Record<string, Outcome<number[]>>;
  minimized?: Record<string, number>[];
  weighted?: Float[];
}
interface RecordedCase {
  name: string;
  scores: ScoreLike[];
  results: RecordedResult[];
  pareto_rank_all_metrics?: number[];
  dominates_matrix?: boolean[][];
  aggregate_score_dicts?: Record<string, number>;
  select_best_no_config: Outcome<number>;
}
const fixture = parityFixture<{ cases: RecordedCase[]; errors: Record<string, Outcome<ScoreDict>> }>("multiobjective-objectives");

function float(value: Float): number {
  if (value === "-inf") return Number.NEGATIVE_INFINITY;
  if (value === "inf") return Number.POSITIVE_INFINITY;
  if (value === "nan") return Number.NaN;
  return value;
}

function configOf(recorded: RecordedConfig): ObjectiveConfig {
  return objectiveConfig({
    mode: recorded.mode,
    weights: recorded.weights,
    minimize: recorded.minimize,
    missingValue: float(recorded.missing_value),
    paretoMetrics: recorded.pareto_metrics,
    tieBreak: recorded.tie_break,
    seed: recorded.seed,
    scalarizeDict: recorded.scalarize_dict,
    scoreKey: recorded.score_key,
  });
}

/** The recorded outcome of `act`: its value, or the error it raised (our errors carry the reference's message). */
function expectOutcome<T>(act: () => T, recorded: Outcome<T>): void {
  if ("raises" in recorded) expect(act).toThrow(recorded.message);
  else expect(act()).toEqual(recorded.value);
}

const results = fixture.cases.flatMap((c) => c.results.map((r, i) => ({ case: c, result: r, label: `${c.name} #${i} ${r.config.mode}/${r.config.tie_break}/seed ${r.config.seed}` })));

describe("parity multiobjective-objectives", () => {
  it("the corpus has the 17 score sets, 11 configs each", () => {
    expect(fixture.cases).toHaveLength(17);
    expect(fixture.cases.every((c) => c.results.length === 11)).toBe(true);
  });

  it.each(results)("$label: select_best and select_top_k for every k", ({ case: c, result }) => {
    const config = configOf(result.config);
    expectOutcome(() => selectBest(c.scores, config), result.select_best);
    for (const [k, outcome] of Object.entries(result.select_top_k)) expectOutcome(() => selectTopK(c.scores, config, Number(k)), outcome);
  });

  it.each(results.filter((r) => r.result.minimized !== undefined))("$label: minimized dicts and weighted sums", ({ case: c, result }) => {
    const config = configOf(result.config);
    const minimized = c.scores.map((s) => applyMinimize(toScoreDict(s), config.minimize));
    expect(minimized).toEqual(result.minimized);
    // Exact floats: the sum adds in the weights' order, as the reference does.
    expect(minimized.map((d) => weightedScalarize(d, config.weights, config.missingValue))).toEqual(result.weighted!.map(float));
  });

  it.each(fixture.cases.filter((c) => c.pareto_rank_all_metrics !== undefined))("$name: Pareto ranks, dominance matrix, aggregate", (c) => {
    const dicts = c.scores.map(toScoreDict);
    expect(paretoRank(dicts)).toEqual(c.pareto_rank_all_metrics);
    expect(dicts.map((a) => dicts.map((b) => dominates(a, b)))).toEqual(c.dominates_matrix);
    const aggregate = aggregateScoreDicts(dicts);
    expect(aggregate).toEqual(c.aggregate_score_dicts);
    // Metrics in sorted order, as the reference builds the dict.
    expect(Object.keys(aggregate)).toEqual(Object.keys(c.aggregate_score_dicts!));
  });

  it.each(fixture.cases)("$name: select_best without a config", (c) => {
    expectOutcome(() => selectBest(c.scores, null), c.select_best_no_config);
  });

  it("the recorded errors: non-finite and empty scores, bad modes, weights and metric lists, a missing score key", () => {
    const errors = fixture.errors;
    expectOutcome(() => toScoreDict(Number.NaN), errors["to_score_dict(nan)"]!);
    expectOutcome(() => toScoreDict({}), errors["to_score_dict({})"]!);
    expectOutcome(() => toScoreDict({ a: Number.POSITIVE_INFINITY }), errors["to_score_dict({'a': inf})"]!);
    expectOutcome(() => toScoreDict(true), errors["to_score_dict(True)"]!);
    expectOutcome(() => objectiveConfig({ mode: "max" }), errors["ObjectiveConfig(mode='max')"] as Outcome<never>);
    expectOutcome(() => objectiveConfig({ weights: { a: -1 } }), errors["ObjectiveConfig(weights={'a': -1})"] as Outcome<never>);
    expectOutcome(() => objectiveConfig({ paretoMetrics: [] }), errors["ObjectiveConfig(pareto_metrics=())"] as Outcome<never>);
    expectOutcome(() => scoreDictToScalar({ a: 1 }, objectiveConfig()), errors["score_dict_to_scalar({'a': 1}, default)"] as Outcome<never>);
  });
});
