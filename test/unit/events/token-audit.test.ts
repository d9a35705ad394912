import { describe, expect, it } from "vitest";
import type { NewEvent } from "../../../src/events/event-schema.js";
import { llmCallRecords } from "../../../src/events/projections/llm-call-records.js";
import { PREFLIGHT_KEY, tokenAudit, UNKNOWN_KEY } from "../../../src/events/projections/token-audit.js";
import { runStarted } from "../../support/events.js";
import { callAborted, callCompleted, callFailed, callStarted, jobFinished, jobQueued, legacyCompleted, storedEvents } from "../../support/llm-events.js";

/** Jobs a (numeric_param, NoOpTrainer), b (multi_param, GEPA, variant gepa_iters=2), c (numeric_param, NoOpTrainer). */
function started(): NewEvent {
  const event = runStarted(["a", "b", "c"]);
  if (event.type !== "RunStarted") throw new Error("unreachable");
  return { ...event, data: { ...event.data, matrix: event.data.matrix.map((s) => (s.job_id === "b" ? { ...s, trainer_id: "GEPA", raw_params: { gepa_iters: 2 } } : s)) } };
}

const call = (job: string, attempt: number, n: number, tokens: [number, number], o: Parameters<typeof callCompleted>[4] = {}) => [
  callStarted(job, attempt, n, o),
  callCompleted(job, attempt, n, tokens, o),
];

describe("llmCallRecords pairs each Started with its outcome", () => {
  it("by job, attempt and call: the same call number in two attempts is two calls; a Started without outcome is lost", () => {
    const records = llmCallRecords(storedEvents([started(), jobQueued("a", 1), callStarted("a", 1, 1), jobQueued("a", 2), ...call("a", 2, 1, [10, 5])]));
    expect(records.map((r) => [r.seq, r.attempt, r.call, r.outcome])).toEqual([
      [3, 1, 1, "lost"],
      [5, 2, 1, "completed"],
    ]);
  });

  it("keeps calls in the order they started, even when outcomes arrive out of order (parallel calls)", () => {
    const records = llmCallRecords(storedEvents([started(), callStarted("a", 1, 1), callStarted("a", 1, 2), callCompleted("a", 1, 2, [1, 1]), callFailed("a", 1, 1)]));
    expect(records.map((r) => [r.call, r.outcome])).toEqual([
      [1, "failed"],
      [2, "completed"],
    ]);
  });

  it("a legacy Completed (no call, no Started) is a completed call of its own", () => {
    const records = llmCallRecords(storedEvents([started(), legacyCompleted("a", 1, [7, 3]), legacyCompleted("a", 1, [7, 3])]));
    expect(records.map((r) => [r.call, r.outcome, r.started])).toEqual([
      [null, "completed", null],
      [null, "completed", null],
    ]);
  });
});

describe("tokenAudit", () => {
  const log = storedEvents([
    started(),
    jobQueued("a", 1),
    ...call("a", 1, 1, [100, 20], { cost: 0.002 }),
    callStarted("a", 1, 2), // lost: the process crashed mid-call
    jobQueued("a", 2),
    ...call("a", 2, 1, [100, 20], { cost: 0.002, replayed: true }),
    ...call("a", 2, 2, [50, 10], { cost: 0.001, cached: 30 }),
    callStarted("a", 2, 3),
    callFailed("a", 2, 3),
    callStarted("a", 2, 4),
    callAborted("a", 2, 4),
    jobFinished("a", 2),
    jobQueued("b", 1),
    ...call("b", 1, 1, [40, 4], { model: "unpriced", role: "agent", cost: null }),
    ...call("b", 1, 2, [60, 6], { cost: 0.003 }),
    jobFinished("b", 1),
  ]);

  it("--by job: every matrix job in matrix order (c without calls), outcomes disjoint, replayed tokens apart from billed ones", () => {
    const audit = tokenAudit(log, "job");
    expect(audit.groups.map((g) => [g.key, g.job?.trainer_id, g.job?.variant, g.calls])).toEqual([
      ["a", "NoOpTrainer", "default", { completed: 2, replayed: 1, failed: 1, aborted: 1, lost: 1 }],
      ["b", "GEPA", "gepa_iters=2", { completed: 2, replayed: 0, failed: 0, aborted: 0, lost: 0 }],
      ["c", "NoOpTrainer", "default", { completed: 0, replayed: 0, failed: 0, aborted: 0, lost: 0 }],
    ]);
    const a = audit.groups[0]!;
    expect(a.billed).toEqual({ prompt_tokens: 150, completion_tokens: 30, cached_tokens: 30, total_tokens: 180 });
    expect(a.replayed).toEqual({ prompt_tokens: 100, completion_tokens: 20, cached_tokens: 0, total_tokens: 120 });
    // The replayed call's cost is not billed again.
    expect(a.cost_usd).toBeCloseTo(0.003, 12);
    expect(audit.groups[2]!.cost_usd).toBe(0);
  });

  it("a billed call without a price makes its groups' and the total's cost unknown, never a partial sum", () => {
    const audit = tokenAudit(log, "job");
    expect(audit.groups[1]!.cost_usd).toBeNull();
    expect(audit.totals.cost_usd).toBeNull();
    expect(audit.totals.billed.total_tokens).toBe(180 + 110);
    // Grouped by model, the priced model keeps its cost: only the unpriced one is unknown.
    const byModel = tokenAudit(log, "model");
    expect(byModel.groups.map((g) => [g.key, g.cost_usd])).toEqual([
      ["gpt-x", expect.closeTo(0.006, 12)],
      ["unpriced", null],
    ]);
  });

  it("a replayed call without a price does not make the billed cost unknown", () => {
    const audit = tokenAudit(storedEvents([started(), ...call("a", 2, 1, [1, 1], { cost: null, replayed: true }), ...call("a", 2, 2, [1, 1], { cost: 0.5 })]), "job");
    expect(audit.groups[0]!.cost_usd).toBe(0.5);
  });

  it("--by task, trainer and role group the same calls, keys sorted, totals identical", () => {
    const byTask = tokenAudit(log, "task");
    expect(byTask.groups.map((g) => [g.key, g.billed.total_tokens])).toEqual([
      ["internal:multi_param", 110],
      ["internal:numeric_param", 180],
    ]);
    expect(tokenAudit(log, "trainer").groups.map((g) => [g.key, g.calls.completed])).toEqual([
      ["GEPA", 2],
      ["NoOpTrainer", 2],
    ]);
    const byRole = tokenAudit(log, "role");
    expect(byRole.groups.map((g) => [g.key, g.calls.completed, g.calls.lost])).toEqual([
      ["agent", 1, 0],
      ["optimizer", 3, 1],
    ]);
    for (const audit of [byTask, byRole]) expect(audit.totals).toEqual({ ...tokenAudit(log, "job").totals });
  });

  it("legacy logs: Completed events without call or Started count as completed and billed; no cost recorded is unknown", () => {
    const audit = tokenAudit(storedEvents([started(), jobQueued("a", 1), legacyCompleted("a", 1, [10, 5]), legacyCompleted("a", 1, [20, 5])]), "job");
    expect(audit.groups[0]!.calls.completed).toBe(2);
    expect(audit.groups[0]!.billed.total_tokens).toBe(40);
    expect(audit.groups[0]!.cost_usd).toBeNull();
    expect(audit.groups[0]!.estimated).toBe(true);
  });

  it("a job no matrix lists is its own job group, and '(not in the matrix)' by task", () => {
    const events = storedEvents([started(), ...call("zz", 1, 1, [3, 3])]);
    expect(tokenAudit(events, "job").groups.map((g) => g.key)).toEqual(["a", "b", "c", "zz"]);
    expect(tokenAudit(events, "task").groups.map((g) => [g.key, g.calls.completed])).toContainEqual([UNKNOWN_KEY, 1]);
  });

  it("the preflight request of each invocation is a billed call of role preflight, under (preflight) by job, task and trainer", () => {
    const first = started();
    const withPreflight = (invocation: number): NewEvent =>
      ({ ...first, data: { ...(first.data as object), invocation, llm_preflight: { model: "gpt-x", prompt_tokens: 9, completion_tokens: 2, total_tokens: 11, cost_usd: 0.25, latency_ms: 4 } } }) as NewEvent;
    const events = storedEvents([withPreflight(1), ...call("a", 1, 1, [10, 5], { cost: 0.5 }), withPreflight(2)]);
    const byJob = tokenAudit(events, "job");
    expect(byJob.groups.map((g) => [g.key, g.calls.completed, g.billed.total_tokens])).toEqual([
      ["a", 1, 15],
      ["b", 0, 0],
      ["c", 0, 0],
      [PREFLIGHT_KEY, 2, 22],
    ]);
    expect(byJob.totals.billed.total_tokens).toBe(15 + 22);
    expect(byJob.totals.cost_usd).toBeCloseTo(1, 12);
    expect(tokenAudit(events, "role").groups.map((g) => [g.key, g.calls.completed])).toEqual([
      ["optimizer", 1],
      ["preflight", 2],
    ]);
    expect(tokenAudit(events, "task").groups[0]!.key).toBe(PREFLIGHT_KEY);
  });

  it("lost_at_most: aborted and lost calls' prompt (exact when the same request was answered) plus max_tokens, apart from the billed tokens", () => {
    const bound = { max_tokens: 40, prompt_tokens_at_most: 500 };
    const events = storedEvents([
      started(),
      jobQueued("a", 1),
      callStarted("a", 1, 1, { bound }), // lost; sent again and answered below (same request hash)
      jobQueued("a", 2),
      callStarted("a", 2, 1, { bound }),
      callCompleted("a", 2, 1, [120, 30]),
      callStarted("a", 2, 2, { bound }),
      callAborted("a", 2, 2), // never answered: its prompt only bounded
      callStarted("b", 1, 3), // lost, logged without a bound
    ]);
    const audit = tokenAudit(events, "job");
    expect(audit.groups[0]!.lost_at_most).toEqual({ prompt_tokens: 120 + 500, completion_tokens: 80, total_tokens: 700, unbounded: 0 });
    expect(audit.groups[0]!.billed.total_tokens).toBe(150);
    expect(audit.groups[1]!.lost_at_most.unbounded).toBe(1);
    expect(audit.totals.lost_at_most).toEqual({ prompt_tokens: 620, completion_tokens: 80, total_tokens: 700, unbounded: 1 });
  });
});
