import { describe, expect, it } from "vitest";
import type { NewEvent, StoredEvent } from "../../../src/events/event-schema.js";
import { renderProjections } from "../../../src/events/projection-writer.js";
import { csvCell, isSecretName, sanitize, REDACTED } from "../../../src/events/projections/artifact-format.js";
import { RESULT_COLUMNS, resultRows } from "../../../src/events/projections/results-table.js";
import { leaderboardCsv } from "../../../src/events/projections/run-files.js";
import { RunState } from "../../../src/events/run-state.js";
import { finishedJob, RUN_ID, runStarted } from "../../support/events.js";

/** Stores events the way the real store does: seq and ts assigned in order. */
function stored(events: readonly NewEvent[]): StoredEvent[] {
  return events.map((e, i) => ({ seq: i + 1, type: e.type, run_id: RUN_ID, job_id: e.job_id ?? null, ts: `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}.000Z`, data: e.data }) as StoredEvent);
}

const log = stored([
  runStarted(["a", "b", "c"]),
  ...finishedJob("a", 1, -3),
  ...finishedJob("b", 1, -1, "failed"),
  // b is re-run in a second invocation and succeeds; c never runs.
  runStarted(["a", "b", "c"], 2),
  ...finishedJob("b", 2, -0.5),
  { type: "RunFinished", data: { invocation: 2, counts: {}, not_run: { c: "fail_fast_stopped" } } },
]);

describe("projections are folds over the event log", () => {
  it("rebuild == incremental: folding all at once equals applying events one by one, at every prefix", () => {
    const incremental = new RunState();
    for (let n = 1; n <= log.length; n++) {
      incremental.apply(log[n - 1]!);
      expect(renderProjections(incremental)).toEqual(renderProjections(RunState.fold(log.slice(0, n))));
    }
  });

  it("a lean state (the writer's) agrees with a full fold on what the writer reads: attempts, statuses, LLM use, order", () => {
    const full = RunState.fold(log);
    const lean = RunState.writer();
    for (const e of log) lean.apply(e);
    const reads = (s: RunState) => ({
      jobs: s.orderedJobs().map((j) => [j.job_id, j.attempt, s.statusOf(j.job_id), j.finished?.score_val ?? null, j.allAttemptTokens, j.allAttemptCost]),
      byModel: [...s.llmByModel],
      byRole: [...s.llmByRole],
      invocations: s.invocations,
      notRun: s.notRun,
      finished: s.finished,
      lastSeq: s.lastSeq,
    });
    expect(reads(lean)).toEqual(reads(full));
    // ...and keeps none of the details only the job files need.
    expect(lean.orderedJobs().every((j) => j.log === "" && j.iterations.length === 0 && (j.finished === null || j.finished.best_values === null))).toBe(true);
  });

  it("the writer's views are the whole run's views released at each finish (but what the rows they skip give: a job's machine state, last seq)", () => {
    const whole = new RunState();
    const writer = RunState.writer();
    for (const e of log) {
      whole.apply(e);
      writer.apply(e);
      if (e.type === "JobFinished") whole.releaseDetail(e.job_id!);
    }
    const views = (s: RunState) =>
      s.orderedJobs().map(({ state: _state, lastSeq: _lastSeq, ...rest }) => rest);
    expect(views(writer)).toEqual(views(whole));
    expect([writer.started, writer.order, writer.llmByModel, writer.preflight]).toEqual([whole.started, whole.order, whole.llmByModel, whole.preflight]);
  });

  it("equal kwargs and names of different jobs are one frozen instance in the state", () => {
    const state = RunState.fold(log);
    const [a, b] = ["a", "b"].map((id) => state.jobs.get(id)!);
    expect(a!.spec.resolved_kwargs).toBe(b!.spec.resolved_kwargs);
    expect(a!.finished!.resolved).toBe(b!.finished!.resolved);
    expect(Object.isFrozen(a!.finished!.resolved.optimizer_kwargs)).toBe(true);
  });

  it("applying an event twice is the same as applying it once", () => {
    const once = RunState.fold(log);
    const twice = new RunState();
    for (const e of log) {
      twice.apply(e);
      twice.apply(e);
    }
    for (const e of log.slice(0, 10)) twice.apply(e); // a replayed prefix changes nothing
    expect(renderProjections(twice)).toEqual(renderProjections(once));
  });

  it("each job appears once, with its latest attempt", () => {
    const rows = resultRows(RunState.fold(log));
    expect(rows.map((r) => [r.job_id, r.status, r.score_val])).toEqual([
      ["a", "ok", -3],
      ["b", "ok", -0.5],
    ]);
  });

  it("results.csv has the 33 original columns first, CRLF rows, Python float text", () => {
    const csv = (renderProjections(RunState.fold(log)).get("results.csv") as string);
    const [header, first] = csv.split("\r\n");
    expect(header!.split(",").slice(0, 33)).toEqual(RESULT_COLUMNS.slice(0, 33));
    expect(header!.split(",").slice(0, 3)).toEqual(["run_id", "job_id", "task_id"]);
    expect(first).toContain(",ok,-3.0,-3.0,-3.0,,0.5,OPROv2,");
    expect(csv.endsWith("\r\n")).toBe(true);
    expect(csv.split("\r\n").filter(Boolean)).toHaveLength(3);
  });

  it("the manifest lists never-run jobs as not_executed with the recorded reason", () => {
    const manifest = JSON.parse((renderProjections(RunState.fold(log)).get("meta/manifest.json") as string)) as { jobs: { job_id: string; status: string; skip_reason?: string }[] };
    expect(manifest.jobs.map((j) => [j.job_id, j.status, j.skip_reason])).toEqual([
      ["a", "ok", undefined],
      ["b", "ok", undefined],
      ["c", "not_executed", "fail_fast_stopped"],
    ]);
  });

  it("token totals count the latest attempts, and separately every attempt paid for", () => {
    const summary = JSON.parse((renderProjections(RunState.fold(log)).get("summary.json") as string)) as Record<string, unknown>;
    expect(summary.token_totals).toEqual({ prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 });
    expect(summary.token_totals_all_attempts).toEqual({ prompt_tokens: 30, completion_tokens: 15, total_tokens: 45 });
    expect(summary.counts).toEqual({ ok: 2, failed: 0, skipped: 0 });
    expect(summary.not_executed).toBe(1);
  });

  it("state history has one line per iteration between initial and final", () => {
    const history = (renderProjections(RunState.fold(log)).get("jobs/a/artifacts/state_history.jsonl") as string);
    expect(history.split("\n").filter(Boolean).map((l) => (JSON.parse(l) as { kind: string }).kind)).toEqual(["initial", "iteration", "final", "best"]);
  });

  it("a job with no finished attempt has only its log", () => {
    const files = [...renderProjections(RunState.fold(log)).keys()].filter((p) => p.startsWith("jobs/c/"));
    expect(files).toEqual(["jobs/c/stdout.log"]);
  });
});

describe("leaderboard", () => {
  const row = (task: string, trainer: string, score: number | null, status = "ok") =>
    ({ task_id: task, suite: "s", job_id: `${task}-${trainer}-${score}`, trainer_id: trainer, resolved_optimizer: "O", score_val: score, score_test: null, time_seconds: 1, status }) as never;

  it("keeps the best ok row per task × trainer × optimizer and ranks within each task by the mean", () => {
    const csv = leaderboardCsv([row("t2", "A", 0.5), row("t1", "A", 0.1), row("t1", "A", 0.9), row("t1", "B", 0.3), row("t1", "C", 2, "failed"), row("t2", "B", null)])!;
    // t1: A's seeds 0.1 and 0.9 (mean 0.5, best 0.9) rank above B's one seed 0.3.
    expect(csv.split("\r\n").filter(Boolean).map((l) => l.split(",").slice(0, 7).join(","))).toEqual([
      "rank,task_id,suite,job_id,trainer_id,resolved_optimizer,score_val",
      "1,t1,s,t1-A-0.9,A,O,0.9",
      "2,t1,s,t1-B-0.3,B,O,0.3",
      "1,t2,s,t2-A-0.5,A,O,0.5",
      "2,t2,s,t2-B-null,B,O,",
    ]);
  });

  it("is the header alone when no row is ok", () => {
    expect(leaderboardCsv([row("t", "A", 1, "failed"), row("t", "B", 1, "budget_exhausted")])).toBe(
      "rank,task_id,suite,job_id,trainer_id,resolved_optimizer,score_val,score_test,time_seconds,variant,n,score_mean,score_std,llm_model,note\r\n",
    );
  });

  it("ranks by the mean over seeds, not by the luckiest seed", () => {
    // A: 0.1, 0.2, 0.9 (best 0.9, mean 0.4); B: 0.6, 0.6 (best 0.6, mean 0.6).
    const csv = leaderboardCsv([row("t", "A", 0.1), row("t", "A", 0.2), row("t", "A", 0.9), { ...(row("t", "B", 0.6) as object), job_id: "b1" } as never, row("t", "B", 0.6)]);
    const lines = csv.split("\r\n").filter(Boolean).map((l) => l.split(","));
    const at = (name: string) => lines[0]!.indexOf(name);
    expect(lines.slice(1).map((l) => [l[0], l[at("trainer_id")], l[at("score_val")], l[at("n")], l[at("score_mean")]])).toEqual([
      ["1", "B", "0.6", "2", "0.6"],
      ["2", "A", "0.9", "3", "0.4"],
    ]);
  });

  it("equal means share a rank, and the next rank skips past them", () => {
    const csv = leaderboardCsv([row("t", "A", 0.5), row("t", "B", 0.5), row("t", "C", 0.2), row("u", "A", 1)]);
    expect(csv.split("\r\n").filter(Boolean).slice(1).map((l) => l.split(",").slice(0, 5).join(","))).toEqual(["1,t,s,t-A-0.5,A", "1,t,s,t-B-0.5,B", "3,t,s,t-C-0.2,C", "1,u,s,u-A-1,A"]);
  });

  it("keeps params variants apart", () => {
    const withVariant = (score: number, variant: string) => ({ ...(row("t", "A", score) as object), job_id: `${variant}-${score}`, variant }) as never;
    const csv = leaderboardCsv([withVariant(1, "ps_steps=2"), withVariant(3, "ps_steps=4"), withVariant(2, "ps_steps=2")]);
    const lines = csv.split("\r\n").filter(Boolean).map((l) => l.split(","));
    const at = (name: string) => lines[0]!.indexOf(name);
    expect(lines.slice(1).map((l) => [l[0], l[at("variant")], l[at("n")], l[at("score_mean")]])).toEqual([
      ["1", "ps_steps=4", "1", "3.0"],
      ["2", "ps_steps=2", "2", "1.5"],
    ]);
  });

  it("ends each row with its model and the run's note (a stub run's label), and keeps each model's best", () => {
    const withModel = (score: number, model: string) => ({ ...(row("t", "A", score) as object), job_id: `${model}-${score}`, llm_model: model }) as never;
    const csv = leaderboardCsv([withModel(1, "m1"), withModel(2, "m1"), withModel(0.5, "m2")], "stub: not optimizers")!;
    const lines = csv.split("\r\n").filter(Boolean).map((l) => l.split(","));
    expect(lines[0]!.slice(-2)).toEqual(["llm_model", "note"]);
    expect(lines.slice(1).map((l) => [l[0], l[3], ...l.slice(-2)])).toEqual([
      ["1", "m1-2", "m1", "stub: not optimizers"],
      ["2", "m2-0.5", "m2", "stub: not optimizers"],
    ]);
    expect(leaderboardCsv([withModel(1, "m1")])!.split("\r\n")[1]!.endsWith(",m1,")).toBe(true);
  });
});

describe("artifact formats", () => {
  it("redacts secrets but keeps token counts and variable names", () => {
    expect(["OPENAI_API_KEY", "HF_TOKEN", "password", "aws_secret_access_key", "apiKey", "GITHUB_TOKEN"].map(isSecretName)).toEqual([true, true, true, true, true, true]);
    expect(["prompt_tokens", "max_tokens", "token_scope", "total_tokens", "api_key_env", "monkey", "keyword"].map(isSecretName)).toEqual([false, false, false, false, false, false, false]);
    expect(sanitize({ llm: { api_key_env: "OPENAI_API_KEY", OPENAI_API_KEY: "sk-123" }, prompt_tokens: 5 })).toEqual({
      llm: { api_key_env: "OPENAI_API_KEY", OPENAI_API_KEY: REDACTED },
      prompt_tokens: 5,
    });
  });

  it("copies objects keeping key order, a key named __proto__, and what JSON cannot hold as null or text", () => {
    const parsed = JSON.parse('{"b": 1, "__proto__": {"x": 2}, "a": [1, {"token": "t"}], "2": 0, "1": 0}') as Record<string, unknown>;
    const copy = sanitize(parsed) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(JSON.stringify(copy)).toBe('{"1":0,"2":0,"b":1,"__proto__":{"x":2},"a":[1,{"token":"***REDACTED***"}]}');
    expect(sanitize({ nan: Number.NaN, inf: -Infinity, when: new Date(0), none: null, list: [undefined] })).toEqual({ nan: null, inf: null, when: new Date(0).toString(), none: null, list: [undefined] });
  });

  it("writes CSV cells like Python's csv module", () => {
    expect(csvCell(-3, "float")).toBe("-3.0");
    expect(csvCell(1e-5, "float")).toBe("1e-05");
    expect(csvCell(7)).toBe("7");
    expect(csvCell(null)).toBe("");
    expect(csvCell(true)).toBe("True");
    expect(csvCell('say "hi", then\nleave')).toBe('"say ""hi"", then\nleave"');
    expect(csvCell({ b: 1, a: "é" })).toBe('"{""a"": ""é"", ""b"": 1}"');
  });
});
