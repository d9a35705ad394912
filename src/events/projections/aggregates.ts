/**
 * Aggregates over seeds (`aggregate.csv` and the `aggregates` section of `summary.json`): one row
 * per task × trainer × params variant × optimizer × model (the comparison key), computed from the
 * results table, so a run's reports say how a configuration does on average and how much it
 * varies, not only its best seed.
 *
 * A group's scores are the final scores (`score_val`) of its jobs that ended `ok` or
 * `budget_exhausted` (a budget-capped job has a final score, and an equal-budget comparison is
 * what a budget is for); `statuses` counts every finished job of the group by status. Over those
 * n scores:
 * - `n`, `score_mean`, `score_std` (sample standard deviation, n − 1 in the denominator; empty
 *   when n < 2), `score_min`, `score_max`, `score_initial_mean` (the same jobs' initial scores);
 * - `score_ci95_low` / `score_ci95_high`: a 95 % percentile bootstrap interval of the mean, only
 *   when n ≥ `MIN_BOOTSTRAP_N` (with fewer seeds the percentiles of resample means are little more
 *   than the range of the scores); otherwise empty, and `ci95_note` says `n too small`.
 *   The scores are sorted, then B = 10,000 resamples of n scores drawn with replacement are
 *   averaged; the interval is the 2.5th and 97.5th percentiles of those B means (linear
 *   interpolation between order statistics, numpy's default). The draws come from the repo's
 *   seeded generator (`src/domain/rng.ts`, which `src/opt/rng.ts` re-exports) with the fixed seed `BOOTSTRAP_SEED`, restarted for each
 *   group, so a group's interval depends only on its own scores: the same log always gives the
 *   same bytes (`trace-bench replay` rebuilds the file byte for byte), and a group's interval does
 *   not move when other groups finish.
 * - `mean_total_tokens` and `mean_cost_usd` over the same jobs (cost empty when some job's cost is
 *   unknown: a model without a price).
 * - per metric of a multi-objective guide (a run whose results have `score_<metric>_*` columns,
 *   metric-columns.ts), after the columns above, metric by metric (sorted): the same figures over
 *   the same jobs' `score_<metric>_best` values (`score_<metric>_mean`, `_std`, `_min`, `_max`,
 *   `_ci95_low`, `_ci95_high`) and `score_<metric>_initial_mean`; each over the jobs that have the
 *   metric (the bootstrap interval again only from `MIN_BOOTSTRAP_N` of them). A run without
 *   metrics has none of these columns.
 * Computed figures (means, spread, interval) are written with 15 significant digits, so a mean of
 * 0.1 and 0.2 reads 0.15, not float noise; minimum and maximum are scores as recorded.
 * `jobs` counts every finished job of the group (any status), so a group whose jobs all failed
 * still shows, with n = 0 and empty figures.
 */
import { createRng } from "../../domain/rng.js";
import { BoundedMemo } from "../../runtime/bounded-memo.js";
import { csvCell, csvLine } from "./artifact-format.js";
import { byName, metricColumn, metricsOfRow } from "./metric-columns.js";
import { RESULT_COLUMN_SET, type ResultRow } from "./results-table.js";

export const BOOTSTRAP_RESAMPLES = 10_000;
export const BOOTSTRAP_SEED = 20_240_601;
/** Fewest scores a bootstrap interval is computed from. */
export const MIN_BOOTSTRAP_N = 5;
export const CI_NOTE_N_TOO_SMALL = "n too small";
/** Statuses whose final score enters the aggregates. */
export const SCORED_STATUSES: ReadonlySet<string> = new Set(["ok", "budget_exhausted"]);

export const AGGREGATE_COLUMNS = [
  "task_id",
  "suite",
  "trainer_id",
  "variant",
  "resolved_optimizer",
  "llm_model",
  "jobs",
  "statuses",
  "n",
  "score_mean",
  "score_std",
  "score_min",
  "score_max",
  "score_ci95_low",
  "score_ci95_high",
  "ci95_note",
  "score_initial_mean",
  "mean_total_tokens",
  "mean_cost_usd",
] as const;

export type AggregateColumn = (typeof AGGREGATE_COLUMNS)[number];
/** A group's figures: the columns above, then its per-metric figures when its jobs have metrics (named by `metricAggregateColumns`). */
export type AggregateRow = Record<AggregateColumn, string | number | null>;

/** The figures aggregated per metric, in column order. */
const METRIC_FIGURES = ["mean", "std", "min", "max", "ci95_low", "ci95_high", "initial_mean"] as const;

/** The aggregate columns of `metrics`, metric by metric. */
export function metricAggregateColumns(metrics: readonly string[]): string[] {
  return metrics.flatMap((metric) => METRIC_FIGURES.map((figure) => `score_${metric}_${figure}`));
}

const AGGREGATE_COLUMN_SET: ReadonlySet<string> = new Set(AGGREGATE_COLUMNS);

const FLOAT_AGGREGATES: ReadonlySet<AggregateColumn> = new Set([
  "score_mean",
  "score_std",
  "score_min",
  "score_max",
  "score_ci95_low",
  "score_ci95_high",
  "score_initial_mean",
  "mean_total_tokens",
  "mean_cost_usd",
]);

/** A computed figure with 15 significant digits: what a double knows, without the noise of its last bits. */
export function tidy(x: number | null): number | null {
  return x === null || !Number.isFinite(x) ? x : Number(x.toPrecision(15));
}

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
const intervals = new BoundedMemo<string, readonly [number, number]>(4096);

/** 95 % percentile bootstrap interval of the mean (see the file comment); null when there is no score. */
export function bootstrapCi95(values: readonly number[], resamples = BOOTSTRAP_RESAMPLES, seed = BOOTSTRAP_SEED): readonly [number, number] | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  // One value, or all equal: every resample's mean is that value (and the loop below would cost
  // resamples × n draws to say so, e.g. 10^8 for a 10,000-seed sweep of a deterministic task).
  if (sorted[0] === sorted.at(-1)) return [sorted[0]!, sorted[0]!];
  return intervals.get(`${resamples}|${seed}|${sorted.join(",")}`, () => bootstrapInterval(sorted, resamples, seed));
}

/** The interval itself, from `resamples` seeded draws with replacement. */
function bootstrapInterval(sorted: readonly number[], resamples: number, seed: number): readonly [number, number] {
  const rng = createRng(seed);
  const n = sorted.length;
  const means = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let total = 0;
    for (let i = 0; i < n; i++) total += sorted[rng.int(n)]!;
    means[b] = total / n;
  }
  means.sort();
  return [quantileSorted(means, 0.025), quantileSorted(means, 0.975)] as const;
}

/** The comparison key of a results row: task × trainer × variant × optimizer × model. */
export function comparisonKey(row: ResultRow): string {
  return JSON.stringify([row.task_id, row.trainer_id, row.variant ?? "", row.resolved_optimizer ?? "", row.llm_model ?? ""]);
}

/** A finite number, or null. */
const finite = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);

/**
 * What a group keeps of its rows while they stream by: the first row's identity, counts, and the
 * scored jobs' figures in row order (a big run's table is never held whole: results-table.ts).
 */
interface GroupFigures {
  readonly first: Pick<AggregateRow, "task_id" | "suite" | "trainer_id" | "variant" | "resolved_optimizer" | "llm_model">;
  jobs: number;
  /** Finished jobs by status, in the order the statuses first appear (`ok=3;budget_exhausted=2`). */
  readonly statuses: Map<string, number>;
  readonly scores: number[];
  readonly initials: number[];
  readonly totalTokens: number[];
  readonly costs: number[];
  /** Some scored job's cost is unknown (a model without a price): the mean cost is. */
  unknownCost: boolean;
  /** Every metric some row of the group has. */
  readonly metrics: Set<string>;
  /** Per metric, the scored jobs' finite `best` and `initial` values. */
  readonly metricValues: Map<string, { readonly best: number[]; readonly initial: number[] }>;
}

function newGroup(row: ResultRow): GroupFigures {
  return {
    first: {
      task_id: String(row.task_id),
      suite: String(row.suite ?? ""),
      trainer_id: String(row.trainer_id),
      variant: String(row.variant ?? ""),
      resolved_optimizer: (row.resolved_optimizer as string | null | undefined) ?? null,
      llm_model: (row.llm_model as string | null | undefined) ?? null,
    },
    jobs: 0,
    statuses: new Map(),
    scores: [],
    initials: [],
    totalTokens: [],
    costs: [],
    unknownCost: false,
    metrics: new Set(),
    metricValues: new Map(),
  };
}

function addRow(group: GroupFigures, row: ResultRow): void {
  group.jobs += 1;
  const status = String(row.status);
  group.statuses.set(status, (group.statuses.get(status) ?? 0) + 1);
  const metrics = metricsOfRow(row, RESULT_COLUMN_SET);
  for (const metric of metrics) group.metrics.add(metric);
  const score = finite(row.score_val);
  if (!SCORED_STATUSES.has(status) || score === null) return;
  group.scores.push(score);
  const initial = finite(row.score_val_initial);
  if (initial !== null) group.initials.push(initial);
  group.totalTokens.push(Number(row.total_tokens));
  if (typeof row.cost_usd === "number") group.costs.push(row.cost_usd);
  else group.unknownCost = true;
  for (const metric of metrics) {
    let values = group.metricValues.get(metric);
    if (values === undefined) group.metricValues.set(metric, (values = { best: [], initial: [] }));
    const cell = (phase: "initial" | "best") => finite((row as Record<string, unknown>)[metricColumn(metric, phase)]);
    const best = cell("best");
    if (best !== null) values.best.push(best);
    const initialValue = cell("initial");
    if (initialValue !== null) values.initial.push(initialValue);
  }
}

/** One row per comparison key, in the order the groups first appear in the results (read once, row by row). */
export function aggregateRows(rows: Iterable<ResultRow>): AggregateRow[] {
  const groups = new Map<string, GroupFigures>();
  for (const row of rows) {
    if (!row.task_id) continue;
    const key = comparisonKey(row);
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = newGroup(row)));
    addRow(group, row);
  }
  return [...groups.values()].map((group) => {
    const scores = group.scores;
    const ci = scores.length >= MIN_BOOTSTRAP_N ? bootstrapCi95(scores) : null;
    return {
      ...group.first,
      jobs: group.jobs,
      statuses: [...group.statuses].map(([status, n]) => `${status}=${n}`).join(";"),
      n: scores.length,
      score_mean: tidy(mean(scores)),
      score_std: tidy(sampleStd(scores)),
      score_min: scores.length === 0 ? null : Math.min(...scores),
      score_max: scores.length === 0 ? null : Math.max(...scores),
      score_ci95_low: tidy(ci?.[0] ?? null),
      score_ci95_high: tidy(ci?.[1] ?? null),
      ci95_note: scores.length < MIN_BOOTSTRAP_N ? CI_NOTE_N_TOO_SMALL : "",
      score_initial_mean: tidy(mean(group.initials)),
      mean_total_tokens: tidy(mean(group.totalTokens)),
      mean_cost_usd: tidy(group.unknownCost ? null : mean(group.costs)),
      ...metricFigures(group),
    };
  });
}

/** A group's per-metric figures over its scored jobs (see the file comment), keyed by column. */
function metricFigures(group: GroupFigures): Record<string, number | null> {
  const figures: Record<string, number | null> = {};
  for (const metric of [...group.metrics].sort(byName)) {
    // A metric named `initial` would take `score_initial_mean`, a column of its own: left out.
    if (metricAggregateColumns([metric]).some((c) => AGGREGATE_COLUMN_SET.has(c))) continue;
    const values = group.metricValues.get(metric)?.best ?? [];
    const initials = group.metricValues.get(metric)?.initial ?? [];
    const ci = values.length >= MIN_BOOTSTRAP_N ? bootstrapCi95(values) : null;
    const at = (figure: (typeof METRIC_FIGURES)[number]) => `score_${metric}_${figure}`;
    figures[at("mean")] = tidy(mean(values));
    figures[at("std")] = tidy(sampleStd(values));
    figures[at("min")] = values.length === 0 ? null : Math.min(...values);
    figures[at("max")] = values.length === 0 ? null : Math.max(...values);
    figures[at("ci95_low")] = tidy(ci?.[0] ?? null);
    figures[at("ci95_high")] = tidy(ci?.[1] ?? null);
    figures[at("initial_mean")] = tidy(mean(initials));
  }
  return figures;
}

/** `aggregate.csv`: the header alone while no job has finished. */
export function aggregateCsv(aggregates: readonly AggregateRow[]): string {
  const extra = metricAggregateColumns(aggregateMetrics(aggregates));
  const lines = [csvLine([...AGGREGATE_COLUMNS, ...extra.map((c) => csvCell(c))])];
  for (const row of aggregates) {
    const cells = AGGREGATE_COLUMNS.map((c) => csvCell(row[c], FLOAT_AGGREGATES.has(c) ? "float" : "plain"));
    for (const c of extra) cells.push(csvCell((row as Record<string, unknown>)[c], "float"));
    lines.push(csvLine(cells));
  }
  return lines.join("");
}

/** The metrics some group has figures for, sorted (read back from the keys `metricFigures` wrote: `METRIC_FIGURES.length` per metric, its mean first). */
export function aggregateMetrics(aggregates: readonly AggregateRow[]): string[] {
  const names = new Set<string>();
  const suffix = `_${METRIC_FIGURES[0]}`;
  for (const row of aggregates) {
    const extra = Object.keys(row).filter((key) => !AGGREGATE_COLUMN_SET.has(key));
    for (let i = 0; i < extra.length; i += METRIC_FIGURES.length) names.add(extra[i]!.slice("score_".length, -suffix.length));
  }
  return [...names].sort(byName);
}
