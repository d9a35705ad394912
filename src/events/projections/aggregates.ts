/**
 * Aggregates over seeds (`aggregate.csv` and the `aggregates` section of `summary.json`): one row
 * per task × trainer × optimizer × model, computed from the results table, so a run's reports
 * say how a configuration does on average and how much it varies, not only its best seed
 * (`leaderboard.csv`, the reference's table, keeps the best seed).
 *
 * Per group, over its ok jobs with a numeric final score (`score_val`):
 * - `n`, `score_mean`, `score_std` (sample standard deviation, n − 1 in the denominator; empty
 *   when n < 2), `score_min`, `score_max`;
 * - `score_ci95_low` / `score_ci95_high`: a 95 % percentile bootstrap interval of the mean.
 *   The scores are sorted, then B = 10,000 resamples of n scores drawn with replacement are
 *   averaged; the interval is the 2.5th and 97.5th percentiles of those B means (linear
 *   interpolation between order statistics, numpy's default). The draws come from the repo's
 *   seeded generator (`src/domain/rng.ts`, which `src/opt/rng.ts` re-exports) with the fixed seed `BOOTSTRAP_SEED`, restarted for each
 *   group, so a group's interval depends only on its own scores: the same log always gives the
 *   same bytes (`trace-bench replay` rebuilds the file byte for byte), and a group's interval does
 *   not move when other groups finish. With n = 1 the interval is [score, score].
 * - `mean_total_tokens` and `mean_cost_usd` over the same jobs (cost empty when some job's cost is
 *   unknown: a model without a price).
 * `jobs` counts every finished job of the group (any status), so a group whose jobs all failed
 * still shows, with n = 0 and empty figures.
 */
import { createRng } from "../../domain/rng.js";
import { csvCell, csvLine } from "./artifact-format.js";
import type { ResultRow } from "./results-table.js";

export const BOOTSTRAP_RESAMPLES = 10_000;
export const BOOTSTRAP_SEED = 20_240_601;

export const AGGREGATE_COLUMNS = [
  "task_id",
  "suite",
  "trainer_id",
  "resolved_optimizer",
  "llm_model",
  "jobs",
  "n",
  "score_mean",
  "score_std",
  "score_min",
  "score_max",
  "score_ci95_low",
  "score_ci95_high",
  "mean_total_tokens",
  "mean_cost_usd",
] as const;

export type AggregateColumn = (typeof AGGREGATE_COLUMNS)[number];
export type AggregateRow = Record<AggregateColumn, string | number | null>;

const FLOAT_AGGREGATES: ReadonlySet<AggregateColumn> = new Set([
  "score_mean",
  "score_std",
  "score_min",
  "score_max",
  "score_ci95_low",
  "score_ci95_high",
  "mean_total_tokens",
  "mean_cost_usd",
]);

/** Sum in a fixed order (the values as given). */
function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

export function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : sum(values) / values.length;
}

/** Sample standard deviation (n − 1); null when n < 2. */
export function sampleStd(values: readonly number[]): number | null {
  if (values.length < 2) return null;
  const m = sum(values) / values.length;
  let squares = 0;
  for (const v of values) squares += (v - m) * (v - m);
  return Math.sqrt(squares / (values.length - 1));
}

/** The q-quantile of sorted values, interpolating linearly between order statistics (numpy's default). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const position = q * (sorted.length - 1);
  const below = Math.floor(position);
  const above = Math.min(below + 1, sorted.length - 1);
  const fraction = position - below;
  return fraction === 0 ? sorted[below]! : sorted[below]! + (sorted[above]! - sorted[below]!) * fraction;
}

/** Intervals already computed, by the sorted scores: a live run refreshes the table after each job. */
const intervals = new Map<string, readonly [number, number]>();

/** 95 % percentile bootstrap interval of the mean (see the file comment); null when there is no score. */
export function bootstrapCi95(values: readonly number[], resamples = BOOTSTRAP_RESAMPLES, seed = BOOTSTRAP_SEED): readonly [number, number] | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  // One value, or all equal: every resample's mean is that value (and the loop below would cost
  // resamples × n draws to say so, e.g. 10^8 for a 10,000-seed sweep of a deterministic task).
  if (sorted[0] === sorted.at(-1)) return [sorted[0]!, sorted[0]!];
  const key = `${resamples}|${seed}|${sorted.join(",")}`;
  const known = intervals.get(key);
  if (known !== undefined) return known;
  const rng = createRng(seed);
  const n = sorted.length;
  const means = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let total = 0;
    for (let i = 0; i < n; i++) total += sorted[rng.int(n)]!;
    means[b] = total / n;
  }
  means.sort();
  const interval = [quantileSorted(means, 0.025), quantileSorted(means, 0.975)] as const;
  if (intervals.size >= 4096) intervals.clear();
  intervals.set(key, interval);
  return interval;
}

/** One row per task × trainer × optimizer × model, in the order the groups first appear in the results. */
export function aggregateRows(rows: readonly ResultRow[]): AggregateRow[] {
  const groups = new Map<string, ResultRow[]>();
  for (const row of rows) {
    if (!row.task_id) continue;
    const key = JSON.stringify([row.task_id, row.trainer_id, row.resolved_optimizer ?? "", row.llm_model ?? ""]);
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = []));
    group.push(row);
  }
  return [...groups.values()].map((group) => {
    const first = group[0]!;
    const scored = group.filter((r) => r.status === "ok" && typeof r.score_val === "number" && Number.isFinite(r.score_val));
    const scores = scored.map((r) => r.score_val as number);
    const ci = bootstrapCi95(scores);
    const costs = scored.map((r) => r.cost_usd);
    const cost = costs.every((c): c is number => typeof c === "number") ? mean(costs as number[]) : null;
    return {
      task_id: String(first.task_id),
      suite: String(first.suite ?? ""),
      trainer_id: String(first.trainer_id),
      resolved_optimizer: (first.resolved_optimizer as string | null | undefined) ?? null,
      llm_model: (first.llm_model as string | null | undefined) ?? null,
      jobs: group.length,
      n: scores.length,
      score_mean: mean(scores),
      score_std: sampleStd(scores),
      score_min: scores.length === 0 ? null : Math.min(...scores),
      score_max: scores.length === 0 ? null : Math.max(...scores),
      score_ci95_low: ci?.[0] ?? null,
      score_ci95_high: ci?.[1] ?? null,
      mean_total_tokens: mean(scored.map((r) => Number(r.total_tokens))),
      mean_cost_usd: cost,
    };
  });
}

/** `aggregate.csv`: the header alone while no job has finished. */
export function aggregateCsv(aggregates: readonly AggregateRow[]): string {
  const lines = [csvLine([...AGGREGATE_COLUMNS])];
  for (const row of aggregates) lines.push(csvLine(AGGREGATE_COLUMNS.map((c) => csvCell(row[c], FLOAT_AGGREGATES.has(c) ? "float" : "plain"))));
  return lines.join("");
}
