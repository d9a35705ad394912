import { describe, expect, it } from "vitest";
import { runSummaryJson } from "../../../src/cli/run-summary-json.js";
import { parseValidateOutput } from "../../../src/cli/validate-json.js";
import type { RunReport } from "../../../src/engine/run-invocation.js";
import type { StoredEvent } from "../../../src/events/event-schema.js";
import { RunState } from "../../../src/events/run-state.js";
import { finishedJob, RUN_ID, runStarted } from "../../support/events.js";

function report(interrupted: boolean): RunReport {
  const events = [runStarted(["a", "b"]), ...finishedJob("a")].map(
    (e, i) => ({ seq: i + 1, v: 2, stream: e.job_id ? `job-${e.job_id}` : "run", position: 0, run_id: RUN_ID, job_id: e.job_id ?? null, ts: "2026-01-01T00:00:00.000Z", type: e.type, data: e.data }) as StoredEvent,
  );
  const plan = { runDir: "runs/r", runId: "r", jobs: [{ job_id: "a" }, { job_id: "b" }] } as unknown as RunReport["plan"];
  return { plan, state: RunState.fold(events), interrupted, ranJobs: 1, behind: [] };
}

describe("run --json's summary", () => {
  it("has the run id, dir, counts, file paths, tokens and cost", () => {
    const doc = runSummaryJson(report(false), 0, "trace-bench run --config c.yaml --run-id r");
    expect(doc).toMatchObject({ run_id: "r", run_dir: "runs/r", status: "finished", exit_code: 0, matrix_jobs: 2, ran_jobs: 1, counts: { ok: 1, not_executed: 1 }, resume_command: null });
    expect(doc.files.results_csv).toBe("runs/r/results.csv");
    expect(doc.files.aggregate_csv).toBe("runs/r/aggregate.csv");
    // finishedJob's one call has no price: the cost is unknown, never a partial sum.
    expect(doc.llm).toEqual({ calls: 1, failed: 0, aborted: 0, prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, cost_usd: null });
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });

  it("an interrupted run carries its resume command", () => {
    expect(runSummaryJson(report(true), 130, "trace-bench run --config c.yaml --run-id r")).toMatchObject({ status: "interrupted", exit_code: 130, resume_command: "trace-bench run --config c.yaml --run-id r" });
  });
});

describe("validate --json reads validate's lines", () => {
  it("verdicts, subjects, details, jobs, manifest and warnings", () => {
    const stdout = [
      "[FAIL] trainer X: unknown trainer",
      "[SKIP] hf:t: needs a token",
      "[OK] internal:numeric_param",
      "",
      "[OK] matrix: 1 jobs expanded deterministically",
      "  job 806f391306ae: internal:numeric_param x PrioritySearch (seed=123)",
      "",
      "  tasks:    ['internal:numeric_param']",
      "[OK] manifest written: runs/x/meta/manifest.json",
      "",
    ].join("\n");
    const doc = parseValidateOutput(stdout, "trace-bench: warning: unknown key 'foo'\n", 1, "c.yaml", true);
    expect(doc).toMatchObject({ ok: false, exit_code: 1, errors: 1, manifest: "runs/x/meta/manifest.json", warnings: ["unknown key 'foo'"] });
    expect(doc.checks.map((c) => [c.verdict, c.subject, c.detail])).toEqual([
      ["FAIL", "trainer X", "unknown trainer"],
      ["SKIP", "hf:t", "needs a token"],
      ["OK", "internal:numeric_param", null],
      ["OK", "matrix", "1 jobs expanded deterministically"],
      ["OK", "manifest written", "runs/x/meta/manifest.json"],
    ]);
    expect(doc.jobs).toEqual([{ job_id: "806f391306ae", task_id: "internal:numeric_param", trainer_id: "PrioritySearch", variant: "default", seed: 123 }]);
  });

  it("a job of a params variant carries its label", () => {
    const stdout = '  job 1a2b3c4d5e6f: internal:numeric_param x PrioritySearch [ps_batches=1,ps_steps=2,tag="a b"] (seed=7, model=m)\n';
    expect(parseValidateOutput(stdout, "", 0, "c.yaml", true).jobs).toEqual([
      { job_id: "1a2b3c4d5e6f", task_id: "internal:numeric_param", trainer_id: "PrioritySearch", variant: 'ps_batches=1,ps_steps=2,tag="a b"', seed: 7, llm_model: "m" },
    ]);
  });

  it("a job of a model list carries its model", () => {
    const stdout = "  job 42dbe1ee9a0a: internal:numeric_param x PrioritySearch (seed=123, model=openrouter/model-a)\n";
    expect(parseValidateOutput(stdout, "", 0, "c.yaml", true).jobs).toEqual([
      { job_id: "42dbe1ee9a0a", task_id: "internal:numeric_param", trainer_id: "PrioritySearch", variant: "default", seed: 123, llm_model: "openrouter/model-a" },
    ]);
  });
});
