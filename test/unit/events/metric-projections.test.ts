/**
 * Per-metric scores (issue 34) in the projections: results.csv's `score_<metric>_initial/final/best`
 * columns, aggregate.csv's per-metric figures, TensorBoard's `score/<metric>` scalars, and a run
 * without metrics rendering exactly as before.
 */
import { describe, expect, it } from "vitest";
import type { NewEvent, StoredEvent } from "../../../src/events/event-schema.js";
import { renderProjections } from "../../../src/events/projection-writer.js";
import { RESULT_COLUMNS } from "../../../src/events/projections/results-table.js";
import { tbEventFilePath } from "../../../src/events/projections/tensorboard-file.js";
import { RunState } from "../../../src/events/run-state.js";
import { fromWriterSnapshot, writerSnapshot } from "../../../src/events/views/view-snapshot.js";
import { parseCsvRecords } from "../../../src/codec/python-csv.js";
import { finishedJob, RUN_ID, runStarted, specRecord } from "../../support/events.js";
import { readTbEvents } from "../../support/tfevents-reader.js";

function stored(events: readonly NewEvent[]): StoredEvent[] {
  return events.map((e, i) => ({ seq: i + 1, type: e.type, run_id: RUN_ID, job_id: e.job_id ?? null, ts: `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}.000Z`, data: e.data }) as StoredEvent);
}

type Metrics = Record<string, number>;

/** `finishedJob` whose guide names metrics: its evaluations and JobFinished carry them, its one iteration too. */
function jobWithMetrics(jobId: string, score: number, metrics: { initial: Metrics; final: Metrics; best: Metrics; iteration?: Metrics }): NewEvent[] {
  return finishedJob(jobId, 1, score).map((e) => {
    if (e.type === "EvaluationCompleted") return { ...e, data: { ...e.data, scores: e.data.phase === "initial" ? metrics.initial : metrics.final } };
    if (e.type === "IterationCompleted" && metrics.iteration) return { ...e, data: { ...e.data, scores: metrics.iteration } };
    if (e.type === "JobFinished") return { ...e, data: { ...e.data, metrics: { initial: metrics.initial, final: metrics.final, best: metrics.best } } };
    return e;
  });
}

/** Three seeds of one task × trainer (one comparison group), the third without metrics, all TensorBoard jobs. */
function metricRun(): StoredEvent[] {
  const started = runStarted(["a", "b", "c"]) as Extract<NewEvent, { type: "RunStarted" }>;
  const matrix = ["a", "b", "c"].map((id, i) => {
    const spec = specRecord(id, "internal:multiobjective_convex", "BasicSearchAlgorithm", i + 1);
    return { ...spec, resolved_kwargs: { ...spec.resolved_kwargs, logger: "TensorboardLogger" } };
  });
  return stored([
    { ...started, data: { ...started.data, matrix } },
    ...jobWithMetrics("a", -2, { initial: { reg_loss: 4, base_loss: 1 }, final: { reg_loss: 1, base_loss: 0.5 }, best: { reg_loss: 1, base_loss: 0.5 }, iteration: { reg_loss: 2, base_loss: 0.25 } }),
    ...jobWithMetrics("b", -3, { initial: { reg_loss: 2, base_loss: 3 }, final: { reg_loss: 3, base_loss: 3 }, best: { reg_loss: 2, base_loss: 3 } }),
    ...finishedJob("c", 1, -1),
  ]);
}

const text = (files: Map<string, unknown>, path: string) => files.get(path) as string;

describe("per-metric scores in the projections", () => {
  it("results.csv: after every other column, score_<metric>_initial/final/best per metric in sorted order, as floats; empty for a job without them", () => {
    const files = renderProjections(RunState.fold(metricRun()));
    const csv = text(files, "results.csv");
    const header = csv.split("\r\n")[0]!.split(",");
    expect(header.slice(0, RESULT_COLUMNS.length)).toEqual([...RESULT_COLUMNS]);
    expect(header.slice(RESULT_COLUMNS.length)).toEqual([
      "score_base_loss_initial",
      "score_base_loss_final",
      "score_base_loss_best",
      "score_reg_loss_initial",
      "score_reg_loss_final",
      "score_reg_loss_best",
    ]);
    const rows = parseCsvRecords(csv);
    const cells = (row: Record<string, string>) => header.slice(RESULT_COLUMNS.length).map((c) => row[c]);
    expect(rows.map(cells)).toEqual([
      ["1.0", "0.5", "0.5", "4.0", "1.0", "1.0"],
      ["3.0", "3.0", "3.0", "2.0", "3.0", "2.0"],
      ["", "", "", "", "", ""],
    ]);
    // Each job's results.json is its row: with the metric keys when it has metrics, without when not.
    expect(JSON.parse(text(files, "jobs/a/results.json")).score_reg_loss_best).toBe(1);
    expect(Object.keys(JSON.parse(text(files, "jobs/c/results.json")))).toEqual([...RESULT_COLUMNS]);
  });

  it("aggregate.csv: per metric the best values' mean, spread, range and the initial mean, over the group's jobs that have the metric", () => {
    const files = renderProjections(RunState.fold(metricRun()));
    const rows = parseCsvRecords(text(files, "aggregate.csv"));
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row.n).toBe("3");
    expect([row.score_base_loss_mean, row.score_base_loss_min, row.score_base_loss_max, row.score_base_loss_initial_mean]).toEqual(["1.75", "0.5", "3.0", "2.0"]);
    expect([row.score_reg_loss_mean, row.score_reg_loss_initial_mean]).toEqual(["1.5", "3.0"]);
    expect(Number(row.score_reg_loss_std)).toBeCloseTo(Math.SQRT1_2, 12);
    // Fewer than five values: no bootstrap interval, as for the score.
    expect([row.score_reg_loss_ci95_low, row.score_reg_loss_ci95_high]).toEqual(["", ""]);
    // summary.json's aggregates are the same rows.
    expect(JSON.parse(text(files, "summary.json")).aggregates[0].score_base_loss_mean).toBe(1.75);
  });

  it("TensorBoard: score/<metric> scalars at the iterations that report metrics, none for a job without", () => {
    const state = RunState.fold(metricRun());
    const files = renderProjections(state);
    const scalarsOf = (id: string) => readTbEvents(files.get(tbEventFilePath(state.jobs.get(id)!.spec)) as Uint8Array).flatMap((e) => (e.scalars ? [e.scalars] : []));
    expect(scalarsOf("a")).toEqual([expect.objectContaining({ "score/base_loss": 0.25, "score/reg_loss": 2, score: -2 })]);
    expect(Object.keys(scalarsOf("c")[0]!).filter((tag) => tag.startsWith("score/"))).toEqual([]);
  });

  it("a run without metrics has none of the columns: its files are what they were", () => {
    const plain = stored([runStarted(["a", "b"]), ...finishedJob("a", 1, -3), ...finishedJob("b", 1, -1)]);
    const files = renderProjections(RunState.fold(plain));
    expect(text(files, "results.csv").split("\r\n")[0]).toBe(RESULT_COLUMNS.join(","));
    expect(text(files, "aggregate.csv").split("\r\n")[0]!.split(",").some((c) => /^score_.*_(mean|best)$/.test(c) && c !== "score_initial_mean")).toBe(false);
  });

  it("rebuild == incremental at every prefix, and the writer's snapshot keeps the metrics", () => {
    const log = metricRun();
    const incremental = new RunState();
    for (let n = 1; n <= log.length; n++) {
      incremental.apply(log[n - 1]!);
      expect(renderProjections(incremental)).toEqual(renderProjections(RunState.fold(log.slice(0, n))));
    }
    const writer = RunState.writer();
    for (const e of log) writer.apply(e);
    const restored = fromWriterSnapshot(writerSnapshot(writer));
    expect(restored.jobs.get("a")!.finished!.metrics).toEqual(writer.jobs.get("a")!.finished!.metrics);
    expect(restored.jobs.get("c")!.finished!.metrics).toBeUndefined();
  });
});
