/** The dashboard's metric scatter: which points it draws and which of them form the Pareto front. */
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../../src/events/event-schema.js";
import type { ResultRow } from "../../../src/events/projections/results-table.js";
import { metricScatter, paretoFront } from "../../../src/ui/metric-scatter.js";
import type { MetricPoint } from "../../../src/ui/api-types.js";

const point = (x: number, y: number, id = `${x},${y}`): MetricPoint => ({ kind: "job", job_id: id, candidate: null, x, y });

/** A results row with two metrics' best values and the objective its trainer ran with. */
function row(jobId: string, cost: number, quality: number, minimize: string[] | null): ResultRow {
  return {
    job_id: jobId,
    resolved_trainer_kwargs: minimize === null ? {} : { objective_config: { mode: "pareto", minimize } },
    score_cost_initial: 9,
    score_cost_final: cost,
    score_cost_best: cost,
    score_quality_initial: 0,
    score_quality_final: quality,
    score_quality_best: quality,
  } as unknown as ResultRow;
}

function candidateEvent(jobId: string, candidate: string, scores: Record<string, number>, seq: number): StoredEvent {
  return { seq, v: 2, stream: `job-${jobId}`, position: seq, type: "CandidateEvaluated", run_id: "r", job_id: jobId, ts: "", data: { attempt: 1, candidate, parents: [], iteration: 1, split: "train", score: 0, example_scores: [0], scores, feedback: [] } } as StoredEvent;
}

describe("metric scatter", () => {
  it("the front holds the points nothing dominates, by each axis' direction, in order along x", () => {
    const points = [point(1, 5), point(2, 2), point(3, 1), point(3, 3), point(4, 0.5), point(2, 2, "twin")];
    // Both minimized: (3,3) is dominated by (2,2); equal points are both kept.
    expect(paretoFront(points, { x: true, y: true }).map((p) => [p.x, p.y, p.job_id])).toEqual([
      [1, 5, "1,5"],
      [2, 2, "2,2"],
      [2, 2, "twin"],
      [3, 1, "3,1"],
      [4, 0.5, "4,0.5"],
    ]);
    // Both maximized: only the corner points survive.
    expect(paretoFront(points, { x: false, y: false }).map((p) => [p.x, p.y])).toEqual([
      [1, 5],
      [3, 3],
      [4, 0.5],
    ]);
  });

  it("jobs at their best metrics and the latest attempt's candidates at their latest evaluation; directions from objective_config", () => {
    const rows = [row("a", 2, 0.9, ["cost"]), row("b", 1, 0.5, null)];
    const streams: Record<string, StoredEvent[]> = {
      "job-a": [candidateEvent("a", "c1", { cost: 5, quality: 0.1 }, 1), candidateEvent("a", "c1", { cost: 0.5, quality: 0.2 }, 2), candidateEvent("a", "c2", { cost: 3 }, 3)],
      "job-b": [candidateEvent("b", "old", { cost: 0, quality: 1 }, 4), { ...candidateEvent("b", "x", {}, 5), type: "JobQueued", data: { attempt: 2, invocation: 2 } } as StoredEvent, candidateEvent("b", "c3", { cost: 4, quality: 0.85 }, 6)],
    };
    const scatter = metricScatter(rows, (stream) => streams[stream] ?? [])!;
    expect([scatter.x, scatter.y, scatter.minimize]).toEqual(["cost", "quality", { x: true, y: false }]);
    expect(scatter.points.map((p) => [p.kind, p.job_id, p.candidate, p.x, p.y])).toEqual([
      ["job", "a", null, 2, 0.9],
      // c1 at its latest evaluation; c2 names no quality: not drawn.
      ["candidate", "a", "c1", 0.5, 0.2],
      ["job", "b", null, 1, 0.5],
      // The first attempt's candidate is gone with it.
      ["candidate", "b", "c3", 4, 0.85],
    ]);
    // Lower cost, higher quality: c3 costs more than job a for less quality; the others trade one for the other.
    expect(scatter.front.map((p) => [p.x, p.y])).toEqual([
      [0.5, 0.2],
      [1, 0.5],
      [2, 0.9],
    ]);
  });

  it("none for a run with fewer than two metrics", () => {
    const one = { job_id: "a", resolved_trainer_kwargs: {}, score_cost_initial: 1, score_cost_final: 1, score_cost_best: 1 } as unknown as ResultRow;
    expect(metricScatter([one], () => [])).toBeNull();
    expect(metricScatter([], () => [])).toBeNull();
  });
});
