/**
 * The per-metric columns of a run whose guide names several scores (multi-objective tasks):
 * `score_<metric>_initial`, `score_<metric>_final` and `score_<metric>_best` in results.csv (and
 * each job's results.json), after every other column, metric by metric in sorted order (code
 * unit order: the same header whichever job finishes first, so replay rebuilds it byte for byte).
 * A run whose guides name no metric has none of them: its files are what they were before.
 */
import type { FinishedAttempt } from "../run-state.js";

/** Which of the job's evaluations a column holds: `best` is the one `score_val` is. */
export const METRIC_PHASES = ["initial", "final", "best"] as const;
export type MetricPhase = (typeof METRIC_PHASES)[number];

const PREFIX = "score_";

export const metricColumn = (metric: string, phase: MetricPhase) => `${PREFIX}${metric}_${phase}`;

/** The columns of `metrics`, metric by metric. */
export function metricColumns(metrics: readonly string[]): string[] {
  return metrics.flatMap((metric) => METRIC_PHASES.map((phase) => metricColumn(metric, phase)));
}

/** Sorted by code units, as Python's `sorted` orders names (the order OpenTrace aggregates score dicts in). */
export const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A finished attempt's metric cells, keyed by column, metric by metric (sorted). A metric whose
 * columns would take the name of a column the table already has (a metric named `val`) is left
 * out rather than overwrite it.
 */
export function metricCells(done: Pick<FinishedAttempt, "metrics">, taken: ReadonlySet<string>): Record<string, number | null> {
  const metrics = done.metrics;
  if (metrics === undefined || metrics === null) return {};
  const names = new Set<string>();
  for (const phase of METRIC_PHASES) for (const metric of Object.keys(metrics[phase] ?? {})) names.add(metric);
  const cells: Record<string, number | null> = {};
  for (const metric of [...names].sort(byName)) {
    if (METRIC_PHASES.some((phase) => taken.has(metricColumn(metric, phase)))) continue;
    for (const phase of METRIC_PHASES) cells[metricColumn(metric, phase)] = metrics[phase]?.[metric] ?? null;
  }
  return cells;
}

/**
 * The metrics whose cells `row` holds (as `metricCells` put them: three columns per metric, in
 * order, after the table's own), read back from their column names.
 */
export function metricsOfRow(row: object, taken: ReadonlySet<string>): string[] {
  const suffix = `_${METRIC_PHASES[0]}`;
  const metrics: string[] = [];
  for (const key of Object.keys(row)) {
    if (taken.has(key) || !key.startsWith(PREFIX) || !key.endsWith(suffix)) continue;
    metrics.push(key.slice(PREFIX.length, key.length - suffix.length));
  }
  return metrics;
}

/** The metrics of all `rows`, sorted: the header of a table that holds them. */
export function metricsOfRows(rows: Iterable<object>, taken: ReadonlySet<string>): string[] {
  const names = new Set<string>();
  for (const row of rows) for (const metric of metricsOfRow(row, taken)) names.add(metric);
  return [...names].sort(byName);
}
