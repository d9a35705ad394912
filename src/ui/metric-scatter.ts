/**
 * The dashboard's metric scatter for a run whose guides name two metrics or more (multi-objective
 * tasks): each finished job at its best evaluation's metrics (results.csv's `score_<metric>_best`)
 * and each candidate its trainer evaluated (CandidateEvaluated's per-metric means, its latest
 * evaluation), on the first two metrics in sorted order, with their Pareto front: the points no
 * other point dominates, each metric read "lower is better" when some job's `objective_config`
 * minimizes it (else higher is better, the guides' convention).
 */
import { jobStream, type StoredEvent } from "../events/event-schema.js";
import { metricColumn, metricsOfRows } from "../events/projections/metric-columns.js";
import { RESULT_COLUMN_SET, type ResultRow } from "../events/projections/results-table.js";
import type { MetricPoint, MetricScatter } from "./api-types.js";

/** The metrics some job's objective_config minimizes (from its resolved trainer kwargs). */
function minimizedMetrics(rows: readonly ResultRow[]): Set<string> {
  const minimized = new Set<string>();
  for (const row of rows) {
    const kwargs = row.resolved_trainer_kwargs as { objective_config?: { minimize?: unknown } } | null | undefined;
    const minimize = kwargs?.objective_config?.minimize;
    if (Array.isArray(minimize)) for (const metric of minimize) if (typeof metric === "string") minimized.add(metric);
  }
  return minimized;
}

/** `a` dominates `b` on both axes (each oriented so that more is better), better on one. */
function dominates(a: MetricPoint, b: MetricPoint, sign: { x: number; y: number }): boolean {
  const [ax, ay, bx, by] = [a.x * sign.x, a.y * sign.y, b.x * sign.x, b.y * sign.y];
  return ax >= bx && ay >= by && (ax > bx || ay > by);
}

/** The non-dominated points, along x (equal points all kept: none dominates the other). */
export function paretoFront(points: readonly MetricPoint[], minimize: { readonly x: boolean; readonly y: boolean }): MetricPoint[] {
  const sign = { x: minimize.x ? -1 : 1, y: minimize.y ? -1 : 1 };
  const front = points.filter((p) => !points.some((q) => q !== p && dominates(q, p, sign)));
  return front.sort((a, b) => a.x - b.x || a.y - b.y);
}

/**
 * The scatter of a run's `rows` (its finished jobs' results rows), its candidates read from each
 * job's stream by `readStream`; null when the rows name fewer than two metrics.
 */
export function metricScatter(rows: readonly ResultRow[], readStream: (stream: string) => readonly StoredEvent[]): MetricScatter | null {
  const metrics = metricsOfRows(rows, RESULT_COLUMN_SET);
  if (metrics.length < 2) return null;
  const [x, y] = [metrics[0]!, metrics[1]!];
  const minimized = minimizedMetrics(rows);
  const minimize = { x: minimized.has(x), y: minimized.has(y) };
  const points: MetricPoint[] = [];
  for (const row of rows) {
    const cells = row as Record<string, unknown>;
    const [bx, by] = [cells[metricColumn(x, "best")], cells[metricColumn(y, "best")]];
    if (typeof bx !== "number" || typeof by !== "number") continue;
    const jobId = String(row.job_id);
    points.push({ kind: "job", job_id: jobId, candidate: null, x: bx, y: by });
    // The latest attempt's candidates (the one its row is of), each at its latest evaluation.
    const latest = new Map<string, MetricPoint>();
    for (const event of readStream(jobStream(jobId))) {
      if (event.type === "JobQueued") latest.clear();
      if (event.type !== "CandidateEvaluated") continue;
      const scores = event.data.scores;
      const [cx, cy] = [scores?.[x], scores?.[y]];
      if (typeof cx === "number" && typeof cy === "number") latest.set(event.data.candidate, { kind: "candidate", job_id: jobId, candidate: event.data.candidate, x: cx, y: cy });
    }
    points.push(...latest.values());
  }
  return { x, y, metrics, minimize, points, front: paretoFront(points, minimize) };
}
