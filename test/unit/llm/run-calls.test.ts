/** RunCalls: what all jobs of a run share — its budget and spending, and the run-stopping error. */
import { describe, expect, it, vi } from "vitest";
import { LlmError } from "../../../src/llm/llm-error.js";
import { RunCalls } from "../../../src/llm/run-calls.js";
import { requestHash } from "../../../src/llm/request-hash.js";
import { contentRef } from "../../../src/events/content-ref.js";

const run = (budget: ConstructorParameters<typeof RunCalls>[0]["budget"], spent?: { tokens: number; cost: number }) =>
  new RunCalls({ journaling: true, price: () => null, budget, ...(spent ? { spent } : {}) });

describe("RunCalls budgets", () => {
  it("has no limits for absent, null or non-positive values", () => {
    const r = run({ max_tokens_per_job: null, max_cost_per_job: 0, max_tokens_per_run: -1 });
    expect(r.jobTokenLimit).toBeNull();
    expect(r.jobCostLimit).toBeNull();
    r.addSpending(1e9, 1e6);
    expect(r.runBudgetSpent()).toBeNull();
  });

  it("passes the job limits on to the jobs", () => {
    const r = run({ max_tokens_per_job: 1000, max_cost_per_job: 0.5 });
    expect([r.jobTokenLimit, r.jobCostLimit]).toEqual([1000, 0.5]);
  });

  it("is spent once the billed tokens reach the run's token limit", () => {
    const r = run({ max_tokens_per_run: 100 });
    r.addSpending(99, 0.01);
    expect(r.runBudgetSpent()).toBeNull();
    r.addSpending(1, 0.01);
    expect(r.runBudgetSpent()).toBe("run token budget spent: 100 of max_tokens_per_run 100");
  });

  it("is spent once the billed cost reaches the run's cost limit", () => {
    const r = run({ max_cost_per_run: 0.5 });
    r.addSpending(10, 0.3);
    expect(r.runBudgetSpent()).toBeNull();
    r.addSpending(10, 0.25);
    expect(r.runBudgetSpent()).toBe("run cost budget spent: $0.5500 of max_cost_per_run $0.5");
  });

  it("names the token budget first when both are spent", () => {
    const r = run({ max_tokens_per_run: 10, max_cost_per_run: 0.1 });
    r.addSpending(10, 0.1);
    expect(r.runBudgetSpent()).toMatch(/^run token budget spent/);
  });

  it("counts what earlier invocations spent", () => {
    expect(run({ max_tokens_per_run: 100 }, { tokens: 100, cost: 0 }).runBudgetSpent()).toBe("run token budget spent: 100 of max_tokens_per_run 100");
    expect(run({ max_cost_per_run: 1 }, { tokens: 0, cost: 0.999 }).runBudgetSpent()).toBeNull();
  });

  it("counts an unknown cost (null) as nothing: only tokens can stop such a run", () => {
    const r = run({ max_cost_per_run: 0.01, max_tokens_per_run: 50 });
    r.addSpending(40, null);
    expect(r.runBudgetSpent()).toBeNull();
    r.addSpending(10, null);
    expect(r.runBudgetSpent()).toBe("run token budget spent: 50 of max_tokens_per_run 50");
  });
});

describe("RunCalls: whether a new job may start", () => {
  it("not once what is left, after requests in flight reserved theirs, cannot pay for the smallest request seen; said once, it stays said", () => {
    const r = run({ max_tokens_per_run: 1000 });
    r.noteWorstCase({ tokens: 400, cost: 0 });
    r.noteWorstCase({ tokens: 300, cost: 0 });
    expect(r.ledger.reserve({ tokens: 300, cost: 0 })).toBeNull();
    r.addSpending(350, 0);
    expect(r.runBudgetSpent()).toBeNull(); // 1000 - 350 - 300 = 350 left: a 300 request fits
    expect(r.ledger.reserve({ tokens: 100, cost: 0 })).toBeNull();
    const said = "run token budget: 250 tokens left of max_tokens_per_run 1000, less than the smallest request so far may use (300)";
    expect(r.runBudgetSpent()).toBe(said);
    // The reservations settle with less spent: more is left, but the jobs it kept from starting keep their reason.
    r.ledger.settle({ tokens: 400, cost: 0 }, { tokens: 50, cost: 0 });
    expect(r.runBudgetSpent()).toBe(said);
  });

  it("a refusal of the run's budget is the reason, until the budget is reached", () => {
    const r = run({ max_tokens_per_run: 100 });
    r.noteRunRefusal("run token budget: the next request may use up to 500 tokens, more than the 100 left of max_tokens_per_run 100");
    expect(r.runBudgetSpent()).toMatch(/^run token budget: the next request/);
    r.addSpending(100, 0);
    expect(r.runBudgetSpent()).toBe("run token budget spent: 100 of max_tokens_per_run 100");
  });
});

describe("RunCalls.stopRun", () => {
  it("keeps the first run-stopping error and reports it once", () => {
    const onRunStopped = vi.fn();
    const r = new RunCalls({ journaling: false, price: () => 0, budget: {}, onRunStopped });
    expect(r.stoppedBy).toBeNull();
    const first = new LlmError("auth", "401 bad key", 401);
    r.stopRun(first);
    r.stopRun(new LlmError("model_not_found", "404 no such model", 404));
    expect(r.stoppedBy).toBe(first);
    expect(onRunStopped).toHaveBeenCalledTimes(1);
    expect(onRunStopped).toHaveBeenCalledWith(first);
  });

  it("stops on auth, permission and unknown model only", () => {
    const kinds = ["auth", "permission", "model_not_found", "bad_request", "rate_limited", "server", "network", "timeout", "malformed", "aborted"] as const;
    expect(kinds.filter((k) => new LlmError(k, "x").stopsRun)).toEqual(["auth", "permission", "model_not_found"]);
  });
});

describe("request hashes and content refs", () => {
  const base = { messages: [{ role: "user" as const, content: "hi" }] };

  it("identifies a request by model, messages, roles and limits", () => {
    const h = requestHash("m", base);
    expect(requestHash("m", { messages: [{ role: "user", content: "hi" }] })).toBe(h);
    expect(requestHash("other", base)).not.toBe(h);
    expect(requestHash("m", { messages: [{ role: "system", content: "hi" }] })).not.toBe(h);
    expect(requestHash("m", { ...base, maxTokens: 16 })).not.toBe(h);
    expect(requestHash("m", { ...base, temperature: 0 })).not.toBe(h);
    expect(requestHash("m", { ...base, responseFormat: "json_object" })).not.toBe(h);
    expect(h).toMatch(/^[0-9a-f]{32}$/);
  });

  it("does not confuse message boundaries", () => {
    const two = requestHash("m", { messages: [{ role: "user", content: "a" }, { role: "user", content: "b" }] });
    expect(requestHash("m", { messages: [{ role: "user", content: "ab" }] })).not.toBe(two);
  });

  it("refs a text by 32 hex digits of its SHA-256", () => {
    expect(contentRef("hello")).toBe("2cf24dba5fb0a30e26e83b2ac5b9e29e");
    expect(contentRef("hello ")).not.toBe(contentRef("hello"));
  });
});
