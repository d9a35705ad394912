import { describe, expect, it } from "vitest";
import { parseCsvRecords } from "../../../src/codec/python-csv.js";
import type { NewEvent } from "../../../src/events/event-schema.js";
import { textOf } from "../../../src/events/projections/text-pieces.js";
import { runFiles } from "../../../src/events/projections/run-files.js";
import { expectedRows, reconcile, type RunFilesRead } from "../../../src/events/projections/token-reconciliation.js";
import { RunState } from "../../../src/events/run-state.js";
import { runStarted } from "../../support/events.js";
import { callAborted, callCompleted, callFailed, callStarted, jobFinished, jobQueued, legacyCompleted, storedEvents } from "../../support/llm-events.js";

const call = (job: string, attempt: number, n: number, tokens: [number, number], o: Parameters<typeof callCompleted>[4] = {}) => [
  callStarted(job, attempt, n, o),
  callCompleted(job, attempt, n, tokens, o),
];

/** A run with every kind of call: re-runs, replayed, lost, failed, aborted, unpriced, legacy, a job still running. */
const events: NewEvent[] = [
  runStarted(["a", "b", "c", "d"]),
  jobQueued("a", 1),
  ...call("a", 1, 1, [100, 20], { cost: 0.000123 }),
  callStarted("a", 1, 2),
  jobQueued("a", 2),
  ...call("a", 2, 1, [100, 20], { cost: 0.000123, replayed: true }),
  ...call("a", 2, 2, [50, 10], { cost: 0.0000071 }),
  callStarted("a", 2, 3),
  callFailed("a", 2, 3),
  jobFinished("a", 2),
  jobQueued("b", 1),
  ...call("b", 1, 1, [40, 4], { model: "unpriced", role: "agent", cost: null }),
  callStarted("b", 1, 2),
  callAborted("b", 1, 2),
  jobFinished("b", 1),
  jobQueued("c", 1),
  legacyCompleted("c", 1, [9, 1]),
  jobFinished("c", 1),
  // d finished once, then its re-run is going: results.csv still shows attempt 1.
  jobQueued("d", 1),
  jobFinished("d", 1),
  jobQueued("d", 2),
  ...call("d", 2, 1, [5, 5]),
];
const log = storedEvents(events);

/** The files as the real projections write them, read back. */
function projectedFiles(): RunFilesRead {
  const files = runFiles(RunState.fold(log));
  return {
    resultsCsv: { state: "read", value: parseCsvRecords(textOf(files.get("results.csv")!)) },
    summaryJson: { state: "read", value: JSON.parse(textOf(files.get("summary.json")!)) as Record<string, unknown> },
  };
}

describe("token reconciliation", () => {
  it("rows are the latest finished attempt's answered calls, replayed included; no answered call costs 0", () => {
    const rows = expectedRows(log);
    expect(rows.get("a")).toEqual({ prompt_tokens: 150, completion_tokens: 30, total_tokens: 180, llm_calls: 2, llm_errors: 1, replayed_calls: 1, cost_usd: 0.0001301 });
    expect(rows.get("b")).toMatchObject({ llm_calls: 1, llm_errors: 0, cost_usd: null });
    expect(rows.get("c")).toMatchObject({ llm_calls: 1, total_tokens: 10, cost_usd: null });
    expect(rows.get("d")).toMatchObject({ llm_calls: 0, total_tokens: 0, cost_usd: 0 });
  });

  it("agrees with the files the projections write, on a log with every kind of call", () => {
    expect(reconcile(log, projectedFiles())).toEqual({ results_csv: "checked", summary_json: "checked", mismatches: [] });
  });

  it("names the file, job, column and both values of a changed results cell", () => {
    const files = projectedFiles();
    if (files.resultsCsv.state !== "read") throw new Error("unreachable");
    const doctored = files.resultsCsv.value.map((row) => (row.job_id === "a" ? { ...row, total_tokens: "181", llm_errors: "0" } : row));
    expect(reconcile(log, { ...files, resultsCsv: { state: "read", value: doctored } }).mismatches).toEqual([
      { file: "results.csv", job_id: "a", column: "total_tokens", events: 180, found: 181 },
      { file: "results.csv", job_id: "a", column: "llm_errors", events: 1, found: 0 },
    ]);
  });

  it("reports a missing row, an extra row, and summary totals that differ", () => {
    const files = projectedFiles();
    if (files.resultsCsv.state !== "read" || files.summaryJson.state !== "read") throw new Error("unreachable");
    const rows = [...files.resultsCsv.value.filter((r) => r.job_id !== "b"), { ...files.resultsCsv.value[0]!, job_id: "zz" }];
    const summary = { ...files.summaryJson.value, token_totals_all_attempts: { prompt_tokens: 1, completion_tokens: 40, total_tokens: 244 }, cost_usd_all_attempts: 0.5 };
    const { mismatches } = reconcile(log, { resultsCsv: { state: "read", value: rows }, summaryJson: { state: "read", value: summary } });
    expect(mismatches).toEqual([
      { file: "results.csv", job_id: "zz", column: "job_id", events: "no finished attempt", found: "a row" },
      { file: "results.csv", job_id: "b", column: "job_id", events: "a finished attempt", found: "no row" },
      { file: "summary.json", job_id: null, column: "token_totals_all_attempts.prompt_tokens", events: 204, found: 1 },
      // The unpriced call makes the billed cost unknown: a number in the file is a mismatch.
      { file: "summary.json", job_id: null, column: "cost_usd_all_attempts", events: null, found: 0.5 },
    ]);
  });

  it("a missing file is said, not a mismatch; an unreadable one is a mismatch", () => {
    const r = reconcile(log, { resultsCsv: { state: "missing" }, summaryJson: { state: "unreadable", problem: "Unexpected end of JSON input" } });
    expect(r.results_csv).toBe("missing");
    expect(r.summary_json).toBe("unreadable");
    expect(r.mismatches).toEqual([{ file: "summary.json", job_id: null, column: "(file)", events: "readable", found: "Unexpected end of JSON input" }]);
  });

  it("checks llm_by_model against the billed calls per model", () => {
    const files = projectedFiles();
    if (files.summaryJson.state !== "read") throw new Error("unreachable");
    const byModel = files.summaryJson.value.llm_by_model as Record<string, Record<string, unknown>>;
    const summary = { ...files.summaryJson.value, llm_by_model: { ...byModel, "gpt-x": { ...byModel["gpt-x"], failed: 0 } } };
    expect(reconcile(log, { ...files, summaryJson: { state: "read", value: summary } }).mismatches).toEqual([
      { file: "summary.json", job_id: null, column: "llm_by_model.gpt-x.failed", events: 1, found: 0 },
    ]);
  });
});
