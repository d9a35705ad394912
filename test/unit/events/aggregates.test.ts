import { describe, expect, it } from "vitest";
import type { NewEvent, StoredEvent } from "../../../src/events/event-schema.js";
import { aggregateRows, bootstrapCi95, quantileSorted, sampleStd } from "../../../src/events/projections/aggregates.js";
import { resultRows } from "../../../src/events/projections/results-table.js";
import { textOf } from "../../../src/events/projections/text-pieces.js";
import { runFiles } from "../../../src/events/projections/run-files.js";
import { RunState } from "../../../src/events/run-state.js";
import { finishedJob, RUN_ID, runStarted, specRecord } from "../../support/events.js";

function stored(events: readonly NewEvent[]): StoredEvent[] {
  return events.map((e, i) => ({ seq: i + 1, type: e.type, run_id: RUN_ID, job_id: e.job_id ?? null, ts: "2026-01-01T00:00:00.000Z", data: e.data }) as StoredEvent);
}

/** A finished job whose one LLM call used `tokens` tokens and cost `cost` USD. */
function job(id: string, score: number, tokens: number, cost: number, status: "ok" | "failed" = "ok"): NewEvent[] {
  return finishedJob(id, 1, score, status).map((e) =>
    e.type === "LlmCallCompleted" ? ({ ...e, data: { ...(e.data as object), prompt_tokens: tokens, completion_tokens: 0, total_tokens: tokens, cost_usd: cost } } as NewEvent) : e,
  );
}

/**
 * The known matrix: numeric_param × NoOpTrainer over 4 seeds (scores 1, 2, 3, 4), numeric_param ×
 * BasicSearch over 4 seeds (one failed; scores -3, -1, 2), multi_param × NoOpTrainer over one seed
 * (score 0.5) and multi_param × BasicSearch whose only job failed.
 */
const specs = [
  ...[1, 2, 3, 4].map((seed) => specRecord(`n${seed}`, "internal:numeric_param", "NoOpTrainer", seed)),
  ...[1, 2, 3, 4].map((seed) => specRecord(`b${seed}`, "internal:numeric_param", "BasicSearch", seed)),
  specRecord("m1", "internal:multi_param", "NoOpTrainer", 1),
  specRecord("f1", "internal:multi_param", "BasicSearch", 1),
];
const started = runStarted([]);
const log = stored([
  { ...started, data: { ...(started.data as object), matrix: specs } } as unknown as NewEvent,
  ...job("n1", 1, 10, 0.01),
  ...job("n2", 2, 20, 0.02),
  ...job("n3", 3, 30, 0.03),
  ...job("n4", 4, 40, 0.04),
  ...job("b1", -3, 100, 0.1),
  ...job("b2", 5, 999, 9, "failed"),
  ...job("b3", -1, 200, 0.2),
  ...job("b4", 2, 300, 0.3),
  ...job("m1", 0.5, 7, 0.007),
  ...job("f1", 1, 1, 1, "failed"),
  { type: "RunFinished", data: { invocation: 1, counts: {}, not_run: {} } },
]);

describe("aggregates over seeds", () => {
  const rows = aggregateRows(resultRows(RunState.fold(log)));

  it("one row per task × trainer × optimizer × model, in the order the groups first appear", () => {
    expect(rows.map((r) => [r.task_id, r.trainer_id, r.resolved_optimizer, r.llm_model, r.jobs, r.n])).toEqual([
      ["internal:numeric_param", "NoOpTrainer", "OPROv2", "stub", 4, 4],
      ["internal:numeric_param", "BasicSearch", "OPROv2", "stub", 4, 3],
      ["internal:multi_param", "NoOpTrainer", "OPROv2", "stub", 1, 1],
      ["internal:multi_param", "BasicSearch", "OPROv2", "stub", 1, 0],
    ]);
  });

  it("mean, sample standard deviation, min, max, mean tokens and cost match the hand computation", () => {
    const [noop, basic] = rows;
    // 1, 2, 3, 4: mean 2.5; squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5, / (4 - 1) → std √(5/3).
    expect(noop!.score_mean).toBe(2.5);
    expect(noop!.score_std).toBeCloseTo(Math.sqrt(5 / 3), 12);
    expect(noop!.score_std).toBeCloseTo(1.2909944487358056, 12);
    expect([noop!.score_min, noop!.score_max]).toEqual([1, 4]);
    expect(noop!.mean_total_tokens).toBe(25);
    expect(noop!.mean_cost_usd).toBeCloseTo(0.025, 12);
    // -3, -1, 2 (the failed seed is left out): mean -2/3; deviations² 49/9 + 1/9 + 64/9 = 114/9, / 2 → std √(19/3).
    expect(basic!.score_mean).toBeCloseTo(-2 / 3, 12);
    expect(basic!.score_std).toBeCloseTo(Math.sqrt(19 / 3), 12);
    expect(basic!.score_std).toBeCloseTo(2.5166114784235836, 12);
    expect([basic!.score_min, basic!.score_max]).toEqual([-3, 2]);
    expect(basic!.mean_total_tokens).toBe(200);
    expect(basic!.mean_cost_usd).toBeCloseTo(0.2, 12);
  });

  it("one seed: no standard deviation, no interval (n too small); no ok job: empty figures", () => {
    const [, , single, none] = rows;
    expect(single).toMatchObject({ n: 1, score_mean: 0.5, score_std: null, score_ci95_low: null, score_ci95_high: null, ci95_note: "n too small" });
    expect(none).toMatchObject({ jobs: 1, n: 0, score_mean: null, score_std: null, score_min: null, score_max: null, score_ci95_low: null, score_ci95_high: null, mean_total_tokens: null });
  });

  it("the 95 % bootstrap interval of 1, 2, 3, 4 is [1.5, 3.5]; the aggregates give none below 5 seeds", () => {
    // Means of 4 draws from {1..4} are multiples of 0.25; P(mean ≤ 1.25) = 5/256 ≈ 2 % and
    // P(mean ≤ 1.5) = 15/256 ≈ 6 %, so the 2.5th percentile of 10,000 resamples is 1.5 (and 3.5 above, by symmetry).
    expect(bootstrapCi95([1, 2, 3, 4])).toEqual([1.5, 3.5]);
    const [low, high] = bootstrapCi95([-3, -1, 2])!;
    expect(low).toBeGreaterThanOrEqual(-3);
    expect(low).toBeLessThan(-2 / 3);
    expect(high).toBeGreaterThan(-2 / 3);
    expect(high).toBeLessThanOrEqual(2);
    // With 4 and 3 seeds the percentiles of resample means are little more than the range: none is reported.
    expect(rows.slice(0, 2).map((r) => [r.score_ci95_low, r.score_ci95_high, r.ci95_note])).toEqual([
      [null, null, "n too small"],
      [null, null, "n too small"],
    ]);
  });

  it("the bootstrap is deterministic and does not depend on the order of the scores", () => {
    const a = bootstrapCi95([0.3, -1.2, 4.5, 2.2, 0.9]);
    expect(bootstrapCi95([4.5, 0.9, 2.2, -1.2, 0.3])).toEqual(a);
    expect(bootstrapCi95([0.3, -1.2, 4.5, 2.2, 0.9], 10_000)).toEqual(a);
    expect(bootstrapCi95([7, 7, 7])).toEqual([7, 7]);
    // Equal scores: the interval is the score itself, exactly (a sum of 0.1s divided back is not).
    expect(bootstrapCi95(Array(10_000).fill(0.1))).toEqual([0.1, 0.1]);
    expect(bootstrapCi95([])).toBeNull();
  });

  it("helpers: sample std and linear-interpolation quantiles", () => {
    expect(sampleStd([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(Math.sqrt(32 / 7), 12);
    expect(sampleStd([3])).toBeNull();
    expect(quantileSorted([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantileSorted([1, 2, 3, 4], 0.025)).toBeCloseTo(1.075, 12);
  });

  it("aggregate.csv and summary.json's aggregates section hold the same figures; leaderboard.csv keeps the reference's columns first", () => {
    const files = runFiles(RunState.fold(log));
    const csv = textOf(files.get("aggregate.csv")!).split("\r\n");
    expect(csv[0]).toBe(
      "task_id,suite,trainer_id,variant,resolved_optimizer,llm_model,jobs,statuses,n,score_mean,score_std,score_min,score_max,score_ci95_low,score_ci95_high,ci95_note,score_initial_mean,mean_total_tokens,mean_cost_usd",
    );
    expect(csv[1]).toBe(`internal:numeric_param,internal,NoOpTrainer,default,OPROv2,stub,4,ok=4,4,2.5,${Number(Math.sqrt(5 / 3).toPrecision(15))},1.0,4.0,,,n too small,2.5,25.0,0.025`);
    expect(csv[2]).toBe(`internal:numeric_param,internal,BasicSearch,default,OPROv2,stub,4,ok=3;failed=1,3,${Number((-2 / 3).toPrecision(15))},${Number(Math.sqrt(19 / 3).toPrecision(15))},-3.0,2.0,,,n too small,${Number((-2 / 3).toPrecision(15))},200.0,0.2`);
    expect(csv[4]).toBe("internal:multi_param,internal,BasicSearch,default,OPROv2,stub,1,failed=1,0,,,,,,,n too small,,,");
    const summary = JSON.parse(textOf(files.get("summary.json")!)) as { aggregates: Record<string, unknown>[] };
    expect(summary.aggregates).toHaveLength(4);
    expect(summary.aggregates[0]).toMatchObject({ task_id: "internal:numeric_param", trainer_id: "NoOpTrainer", n: 4, score_mean: 2.5, score_ci95_low: null, score_ci95_high: null });
    expect(textOf(files.get("leaderboard.csv")!).split("\r\n")[0]).toBe("rank,task_id,suite,job_id,trainer_id,resolved_optimizer,score_val,score_test,time_seconds,variant,n,score_mean,score_std,llm_model,note");
  });

  it("files_index.json holds paths relative to the run directory", () => {
    const index = JSON.parse(textOf(runFiles(RunState.fold(log)).get("meta/files_index.json")!)) as {
      run_dir: string;
      canonical_files: Record<string, string>;
      notes: { event_log: string };
      jobs: { files: Record<string, string> }[];
    };
    expect(index.run_dir).toBe(".");
    expect(index.canonical_files.results_csv).toBe("results.csv");
    expect(index.canonical_files.aggregate_csv).toBe("aggregate.csv");
    expect(index.notes.event_log).toBe("events.db");
    expect(index.jobs[0]!.files.results_json).toBe("jobs/n1/results.json");
    const every = [...Object.values(index.canonical_files), ...index.jobs.flatMap((j) => Object.values(j.files))];
    for (const path of every) expect(path.startsWith("/") || path.startsWith("runs/") || path.includes("..")).toBe(false);
  });
});
