/** Calls sent without a bill in the log (aborted, lost) and what they may have cost, at most. */
import { describe, expect, it } from "vitest";
import type { EventBody } from "../../../src/events/event-schema.js";
import { cutOffCalls } from "../../../src/events/projections/cut-off-calls.js";
import { earlierSpending } from "../../../src/llm/earlier-spending.js";
import { promptTokensAtMost, requestWorstCase } from "../../../src/llm/request-worst-case.js";
import { runStarted } from "../../support/events.js";
import { callAborted, callCompleted, callFailed, callStarted, jobFinished, jobQueued, storedEvents } from "../../support/llm-events.js";

const bound = { max_tokens: 50, prompt_tokens_at_most: 400 };
const body = (events: ReturnType<typeof storedEvents>): EventBody[] => events.map((e) => ({ type: e.type, data: e.data }) as EventBody);

describe("the bound of a request before it is sent", () => {
  it("counts one token per UTF-8 byte (multi-byte characters count each byte) plus the chat format's tokens", () => {
    const ascii = promptTokensAtMost([{ role: "user", content: "abcd" }]);
    const accented = promptTokensAtMost([{ role: "user", content: "éééé" }]);
    expect(accented - ascii).toBe(4);
    expect(promptTokensAtMost([{ role: "user", content: "" }, { role: "user", content: "" }]) - promptTokensAtMost([{ role: "user", content: "" }])).toBeGreaterThan(4);
  });

  it("has no bound without max_tokens", () => {
    expect(requestWorstCase({ messages: [{ role: "user", content: "x" }] }).tokens).toBe(Number.POSITIVE_INFINITY);
    const r = requestWorstCase({ messages: [{ role: "user", content: "x" }], maxTokens: 7 });
    expect(r.tokens).toBe(r.prompt_tokens_at_most + 7);
  });
});

describe("cutOffCalls", () => {
  const log = storedEvents([
    runStarted(["a"]),
    jobQueued("a", 1),
    callStarted("a", 1, 1, { bound }),
    callCompleted("a", 1, 1, [100, 20]),
    callStarted("a", 1, 2, { bound }), // lost: the process died; sent again (and answered) by attempt 2
    jobQueued("a", 2),
    callStarted("a", 2, 1, { bound }),
    callCompleted("a", 2, 1, [100, 20], { replayed: true }),
    callStarted("a", 2, 2, { bound }),
    callCompleted("a", 2, 2, [300, 10]),
    callStarted("a", 2, 3, { bound }),
    callFailed("a", 2, 3), // an error reply: not billed
    callStarted("a", 2, 4, { bound }),
    callAborted("a", 2, 4), // cut off: never answered anywhere, so its prompt is only bounded
    callStarted("a", 2, 5), // lost, logged without a bound (an older trace-bench)
  ]);

  it("bounds each aborted or lost call: its prompt exact when the same request was answered, else at most; its completion at most max_tokens", () => {
    expect(cutOffCalls(body(log), false).map((c) => [c.attempt, c.prompt_tokens, c.prompt_known, c.completion_tokens, c.tokens])).toEqual([
      [1, 300, true, 50, 350],
      [2, 400, false, 50, 450],
      [2, null, false, null, null],
    ]);
  });

  it("sinceKept: only the attempts after the job's latest kept result", () => {
    const kept = [...body(log), { type: "JobFinished", data: { ...(jobFinished("a", 2).data as object), attempt: 2, status: "budget_exhausted" } } as EventBody];
    expect(cutOffCalls(kept, true)).toEqual([]);
    expect(cutOffCalls(kept, false)).toHaveLength(3);
  });

  it("earlierSpending: billed calls and preflights, and cut-off calls at their most (replayed replies cost nothing again)", () => {
    const started = runStarted(["a"]);
    const withPreflight = { ...started, data: { ...started.data, llm_preflight: { model: "gpt-x", prompt_tokens: 9, completion_tokens: 1, total_tokens: 10, cost_usd: 0.5, latency_ms: 3 } } } as typeof started;
    const events = storedEvents([withPreflight, ...log.slice(1).map((e) => ({ type: e.type, job_id: e.job_id!, data: e.data }) as Parameters<typeof storedEvents>[0][number])]);
    const spent = earlierSpending(events, (_model, use) => use.total_tokens / 1000);
    // 120 + 310 billed, 10 preflight, 350 + 450 cut off at most.
    expect(spent.tokens).toBe(120 + 310 + 10 + 350 + 450);
    expect(spent.cost).toBeCloseTo(0.001 + 0.001 + 0.5 + 0.35 + 0.45, 10);
  });
});
