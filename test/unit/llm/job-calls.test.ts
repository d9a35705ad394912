/**
 * JobCalls: every LLM call of an attempt recorded around the request (Started before it leaves,
 * then exactly one outcome), replays from the journal of interrupted attempts, job and run budgets,
 * the run-stopping error, and the optimizer replies' usability.
 */
import { describe, expect, it, vi } from "vitest";
import { contentRef } from "../../../src/events/content-ref.js";
import { unusableReason } from "../../../src/engine/trainer-context.js";
import { journalFromHistory } from "../../../src/llm/call-journal.js";
import { BudgetLedger } from "../../../src/llm/budget-ledger.js";
import { BudgetExhausted } from "../../../src/llm/job-calls.js";
import type { RunBudgetJudge } from "../../../src/llm/run-budget-judge.js";
import { promptTokensAtMost } from "../../../src/llm/request-worst-case.js";
import { LlmError } from "../../../src/llm/llm-error.js";
import type { ChatResponse } from "../../../src/llm/llm.js";
import type { Proposal } from "../../../src/opt/optimizer.js";
import {
  collector,
  completed,
  deferred,
  echoLlm,
  failed,
  fakeLlm,
  finished,
  hangingLlm,
  hashOf,
  jobCalls,
  MODEL,
  queued,
  reply,
  request,
  runCalls,
  started,
  usage,
  bounded,
  priceOf,
} from "./call-fakes.js";

describe("a live call", () => {
  it("records LlmCallStarted, with its messages' contents, before the request is sent", async () => {
    const c = collector();
    const calls = jobCalls(c);
    const req = request("improve x");
    const inner = fakeLlm(() => {
      // The fact is committed while the request has not left yet.
      expect(c.types()).toEqual(["LlmCallStarted"]);
      return reply("x = 2");
    });
    await calls.llm(inner, "optimizer").complete(req);

    const systemRef = contentRef("You are an optimizer.");
    const userRef = contentRef("improve x");
    expect(c.batches[0]!.facts).toEqual([
      {
        type: "LlmCallStarted",
        data: {
          attempt: 2,
          call: 1,
          role: "optimizer",
          model: MODEL,
          request_hash: hashOf(req),
          messages: [{ role: "system", ref: systemRef }, { role: "user", ref: userRef }],
          // No max_tokens: no bound on the completion; the prompt's bound is its bytes plus the chat format's tokens.
          max_tokens: null,
          prompt_tokens_at_most: promptTokensAtMost(req.messages),
        },
      },
    ]);
    // The messages' texts travel in the same record call as the fact that refers to them.
    expect(c.batches[0]!.contents).toEqual(new Map([[systemRef, "You are an optimizer."], [userRef, "improve x"]]));
  });

  it("does not send the request when the log refuses the Started fact", async () => {
    const c = collector();
    c.refuseWith(new Error("log is read-only"));
    const inner = echoLlm();
    await expect(jobCalls(c).llm(inner, "optimizer").complete(request("a"))).rejects.toThrow("log is read-only");
    expect(inner.requests).toHaveLength(0);
    expect(c.facts).toHaveLength(0);
  });

  it("records LlmCallCompleted with tokens, cached tokens, retries, the priced cost and the reply by ref", async () => {
    const c = collector();
    const price = vi.fn((_model: string, u: { total_tokens: number }) => u.total_tokens / 1000);
    const calls = jobCalls(c, { run: runCalls({ price }) });
    const inner = fakeLlm(() => reply("new value", usage(300, 50, 120), { retries: 2 }));
    const response = await calls.llm(inner, "optimizer").complete(request("a"));

    expect(response.content).toBe("new value");
    expect(price).toHaveBeenCalledWith(MODEL, usage(300, 50, 120));
    const [done] = c.ofType("LlmCallCompleted");
    expect(done).toMatchObject({
      attempt: 2,
      call: 1,
      role: "optimizer",
      model: MODEL,
      prompt_tokens: 300,
      completion_tokens: 50,
      total_tokens: 350,
      cached_tokens: 120,
      estimated: false,
      retries: 2,
      cost_usd: 0.35,
      reply_ref: contentRef("new value"),
      replayed: false,
    });
    expect(done!.latency_ms).toBeGreaterThanOrEqual(0);
    expect(c.types()).toEqual(["LlmCallStarted", "LlmCallCompleted"]);
    expect(c.batches[1]!.contents).toEqual(new Map([[contentRef("new value"), "new value"]]));
    expect(calls.counts).toMatchObject({ started: 1, completed: 1, replayed: 0, failed: 0, aborted: 0 });
  });

  it("records 0 cached tokens and 0 retries when the adapter reports none, and a null cost for an unpriced model", async () => {
    const c = collector();
    const calls = jobCalls(c, { run: runCalls({ price: () => null }) });
    await calls.llm(echoLlm(), "optimizer").complete(request("a"));
    expect(c.ofType("LlmCallCompleted")[0]).toMatchObject({ cached_tokens: 0, retries: 0, cost_usd: null });
  });

  it("numbers calls 1, 2, 3 across roles, and the shared system prompt has one ref", async () => {
    const c = collector();
    const calls = jobCalls(c);
    const inner = echoLlm();
    await calls.llm(inner, "optimizer").complete(request("one"));
    await calls.llm(inner, "agent").complete(request("two"));
    await calls.llm(inner, "guide").complete(request("three"));

    const starts = c.ofType("LlmCallStarted");
    expect(starts.map((s) => [s.call, s.role])).toEqual([
      [1, "optimizer"],
      [2, "agent"],
      [3, "guide"],
    ]);
    expect(c.ofType("LlmCallCompleted").map((d) => [d.call, d.role])).toEqual([
      [1, "optimizer"],
      [2, "agent"],
      [3, "guide"],
    ]);
    expect(new Set(starts.map((s) => s.messages[0]!.ref))).toEqual(new Set([contentRef("You are an optimizer.")]));
    // One system prompt, three user messages, three replies.
    expect(c.contents.size).toBe(7);
  });

  it("keeps the model of the wrapped LLM", () => {
    expect(jobCalls(collector()).llm(echoLlm("m-1"), "optimizer").model).toBe("m-1");
  });
});

describe("a failed call", () => {
  it("records LlmCallFailed with the LlmError's class, status, retries and first line, and rethrows it", async () => {
    const c = collector();
    const calls = jobCalls(c);
    const error = new LlmError("server", "HTTP 503 Service Unavailable\n<html>stack trace</html>", 503, 3);
    const inner = fakeLlm(() => {
      throw error;
    });
    await expect(calls.llm(inner, "optimizer").complete(request("a"))).rejects.toBe(error);
    expect(c.types()).toEqual(["LlmCallStarted", "LlmCallFailed"]);
    expect(c.ofType("LlmCallFailed")[0]).toMatchObject({ attempt: 2, call: 1, role: "optimizer", model: MODEL, error_class: "server", http_status: 503, retries: 3, message: "HTTP 503 Service Unavailable" });
    expect(calls.counts).toMatchObject({ started: 1, completed: 0, failed: 1 });
    expect(calls.lastFailure).toBe("HTTP 503 Service Unavailable");
  });

  it("records an error that is not an LlmError as class 'error'", async () => {
    const c = collector();
    const inner = fakeLlm(() => {
      throw new TypeError("cannot read properties of undefined");
    });
    await expect(jobCalls(c).llm(inner, "optimizer").complete(request("a"))).rejects.toThrow(TypeError);
    expect(c.ofType("LlmCallFailed")[0]).toMatchObject({ error_class: "error", http_status: null, retries: 0, message: "cannot read properties of undefined" });
  });

  it("stops the run once on a run-stopping error; later calls of any job of the run are refused unsent", async () => {
    const onRunStopped = vi.fn();
    const run = runCalls({ onRunStopped });
    const c1 = collector();
    const c2 = collector();
    const job1 = jobCalls(c1, { run });
    const job2 = jobCalls(c2, { run });
    const auth = new LlmError("auth", "401 invalid api key", 401);
    // Job 2 has a request in flight when job 1 meets the error.
    const pending = deferred<ChatResponse>();
    const inflight = job2.llm(fakeLlm(() => pending.promise), "optimizer").complete(request("slow"));

    await expect(
      job1
        .llm(
          fakeLlm(() => {
            throw auth;
          }),
          "optimizer",
        )
        .complete(request("a")),
    ).rejects.toBe(auth);
    expect(onRunStopped).toHaveBeenCalledTimes(1);
    expect(onRunStopped).toHaveBeenCalledWith(auth);
    expect(run.stoppedBy).toBe(auth);

    // Job 2's in-flight call fails the same way: the run is not stopped twice.
    pending.reject(new LlmError("auth", "401 invalid api key", 401));
    await expect(inflight).rejects.toThrow("401");
    expect(onRunStopped).toHaveBeenCalledTimes(1);

    const factsBefore = [c1.facts.length, c2.facts.length];
    for (const job of [job1, job2]) {
      const inner = echoLlm();
      const refused = job.llm(inner, "optimizer").complete(request("b"));
      await expect(refused).rejects.toMatchObject({ kind: "auth", httpStatus: 401 });
      await expect(refused).rejects.toThrow("not sent: the run stopped after 401 invalid api key");
      expect(inner.requests).toHaveLength(0);
    }
    expect([c1.facts.length, c2.facts.length]).toEqual(factsBefore);
  });

  it("does not stop the run on an error that only concerns this request", async () => {
    const run = runCalls();
    const c = collector();
    const calls = jobCalls(c, { run });
    const inner = fakeLlm((_r, _s, n) => {
      if (n === 1) throw new LlmError("bad_request", "400 context too long", 400);
      return reply("ok");
    });
    await expect(calls.llm(inner, "optimizer").complete(request("a"))).rejects.toThrow("context too long");
    expect(run.stoppedBy).toBeNull();
    await expect(calls.llm(inner, "optimizer").complete(request("b"))).resolves.toMatchObject({ content: "ok" });
  });
});

describe("an aborted call", () => {
  it("records LlmCallAborted with the signal's reason when the signal aborts mid-call", async () => {
    const c = collector();
    const calls = jobCalls(c);
    const controller = new AbortController();
    const call = calls.llm(hangingLlm(), "agent").complete(request("a"), controller.signal);
    controller.abort(new Error("job_timeout\nmore"));
    await expect(call).rejects.toMatchObject({ kind: "aborted" });
    expect(c.types()).toEqual(["LlmCallStarted", "LlmCallAborted"]);
    expect(c.ofType("LlmCallAborted")[0]).toMatchObject({ attempt: 2, call: 1, role: "agent", model: MODEL, reason: "job_timeout" });
    expect(calls.counts).toMatchObject({ started: 1, aborted: 1, failed: 0 });
  });

  it("names the budget when a budget abort cut the call off", async () => {
    const c = collector();
    const controller = new AbortController();
    const call = jobCalls(c).llm(hangingLlm(), "optimizer").complete(request("a"), controller.signal);
    controller.abort(new BudgetExhausted("job token budget spent: 40 of max_tokens_per_job 30"));
    await expect(call).rejects.toThrow();
    expect(c.ofType("LlmCallAborted")[0]!.reason).toBe("job token budget spent: 40 of max_tokens_per_job 30");
  });

  it("records an adapter's own abort (kind aborted, no signal) as aborted, not failed", async () => {
    const c = collector();
    const inner = fakeLlm(() => {
      throw new LlmError("aborted", "the request was aborted");
    });
    await expect(jobCalls(c).llm(inner, "optimizer").complete(request("a"))).rejects.toThrow();
    expect(c.types()).toEqual(["LlmCallStarted", "LlmCallAborted"]);
    expect(c.ofType("LlmCallAborted")[0]!.reason).toBe("the request was aborted");
  });

  it("sends nothing and records nothing when the signal is already aborted", async () => {
    const c = collector();
    const inner = echoLlm();
    await expect(jobCalls(c).llm(inner, "optimizer").complete(request("a"), AbortSignal.abort())).rejects.toMatchObject({ kind: "aborted" });
    expect(inner.requests).toHaveLength(0);
    expect(c.facts).toEqual([]);
  });

  it("abortInFlight returns Aborted facts for the pending calls; their late settlement records nothing", async () => {
    const c = collector();
    const calls = jobCalls(c);
    const first = deferred<ChatResponse>();
    const second = deferred<ChatResponse>();
    const inner = fakeLlm((_r, _s, n) => (n === 1 ? reply("quick") : n === 2 ? first.promise : second.promise));
    await calls.llm(inner, "optimizer").complete(request("done"));
    const late1 = calls.llm(inner, "optimizer").complete(request("one"));
    const late2 = calls.llm(inner, "guide").complete(request("two"));
    await Promise.resolve();
    const recordedBefore = c.facts.length;

    const facts = calls.abortInFlight("cancelled");
    expect(facts.map((f) => f.type)).toEqual(["LlmCallAborted", "LlmCallAborted"]);
    expect(facts.map((f) => f.data)).toMatchObject([
      { attempt: 2, call: 2, role: "optimizer", model: MODEL, reason: "cancelled" },
      { attempt: 2, call: 3, role: "guide", model: MODEL, reason: "cancelled" },
    ]);
    // Returned for the attempt's end to record, not recorded here.
    expect(c.facts.length).toBe(recordedBefore);
    expect(calls.counts.aborted).toBe(2);

    first.resolve(reply("too late"));
    second.reject(new LlmError("server", "500"));
    await expect(late1).resolves.toMatchObject({ content: "too late" });
    await expect(late2).rejects.toThrow("500");
    expect(c.facts.length).toBe(recordedBefore);
    expect(calls.counts).toMatchObject({ completed: 1, failed: 0, aborted: 2 });
    expect(calls.abortInFlight("cancelled")).toEqual([]);
  });

  it("a late abort rejection after abortInFlight records no second outcome", async () => {
    const c = collector();
    const calls = jobCalls(c);
    const controller = new AbortController();
    const call = calls.llm(hangingLlm(), "optimizer").complete(request("a"), controller.signal);
    await Promise.resolve();
    expect(calls.abortInFlight("job_timeout")).toHaveLength(1);
    controller.abort(new Error("job_timeout"));
    await expect(call).rejects.toThrow();
    expect(c.types()).toEqual(["LlmCallStarted"]);
  });
});

describe("replaying the journal of an interrupted attempt", () => {
  const [A, B, C, D] = [request("A"), request("B"), request("C"), request("D")];
  const replies = new Map([
    [contentRef("reply A"), "reply A"],
    [contentRef("reply B"), "reply B"],
    [contentRef("reply C"), "reply C"],
  ]);
  /** Attempt 1 crashed after its calls A, B, C were answered. */
  const crashed = [
    queued(1),
    started(1, 1, hashOf(A)),
    completed(1, 1, contentRef("reply A")),
    started(1, 2, hashOf(B)),
    completed(1, 2, contentRef("reply B"), { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10, cached_tokens: 0, cost_usd: null, estimated: true }),
    started(1, 3, hashOf(C)),
    completed(1, 3, contentRef("reply C")),
  ];

  it("answers matching requests from the journal without sending them, recording Started + Completed{replayed}", async () => {
    const c = collector();
    const run = runCalls();
    const calls = jobCalls(c, { run, journal: journalFromHistory(crashed), replies });
    const inner = echoLlm();
    const llm = calls.llm(inner, "optimizer");

    const a = await llm.complete(A);
    const b = await llm.complete(B);
    expect(inner.requests).toHaveLength(0);
    expect(a).toMatchObject({ content: "reply A", retries: 0, estimated: false, usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, cached_tokens: 40 } });
    expect(b).toMatchObject({ content: "reply B", estimated: true, usage: { total_tokens: 10 } });
    expect(c.types()).toEqual(["LlmCallStarted", "LlmCallCompleted", "LlmCallStarted", "LlmCallCompleted"]);
    expect(c.ofType("LlmCallStarted").map((s) => [s.call, s.request_hash])).toEqual([
      [1, hashOf(A)],
      [2, hashOf(B)],
    ]);
    expect(c.ofType("LlmCallCompleted")).toEqual([
      { attempt: 2, call: 1, role: "optimizer", model: MODEL, prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, cached_tokens: 40, latency_ms: 0, estimated: false, retries: 0, cost_usd: 0.25, reply_ref: contentRef("reply A"), replayed: true },
      { attempt: 2, call: 2, role: "optimizer", model: MODEL, prompt_tokens: 7, completion_tokens: 3, total_tokens: 10, cached_tokens: 0, latency_ms: 0, estimated: true, retries: 0, cost_usd: null, reply_ref: contentRef("reply B"), replayed: true },
    ]);
    // The prompts are stored with the Started fact like a live call's.
    expect(c.batches[0]!.contents.get(contentRef("A"))).toBe("A");
    expect(calls.counts).toMatchObject({ started: 2, completed: 2, replayed: 2 });
    // Replies from the journal were paid for by the earlier attempt: the run's spending is untouched.
    expect(run.runBudgetSpent()).toBeNull();
  });

  it("sends a request beyond the journal's end live, without a divergence", async () => {
    const c = collector();
    const calls = jobCalls(c, { journal: journalFromHistory(crashed), replies });
    const inner = echoLlm();
    const llm = calls.llm(inner, "optimizer");
    for (const req of [A, B, C]) await llm.complete(req);
    await expect(llm.complete(D)).resolves.toMatchObject({ content: "reply-1" });
    expect(inner.requests).toEqual([D]);
    expect(c.ofType("JournalDiverged")).toEqual([]);
    expect(c.ofType("LlmCallCompleted").map((d) => d.replayed)).toEqual([true, true, true, false]);
  });

  it("records JournalDiverged once at the first unknown request, and every later call goes live", async () => {
    const c = collector();
    const calls = jobCalls(c, { journal: journalFromHistory(crashed), replies });
    const inner = echoLlm();
    const llm = calls.llm(inner, "optimizer");
    await llm.complete(A);
    await llm.complete(D); // the journal holds B here
    await llm.complete(B); // would match, but the replay has ended
    await llm.complete(C);

    expect(c.ofType("JournalDiverged")).toEqual([{ attempt: 2, call: 2, request_hash: hashOf(D), journaled_hash: hashOf(B), replayed: 1 }]);
    // The divergence is recorded with the Started fact of the request that diverged, before it
    // (batch 0 is A's replay: Started and Completed together).
    expect(c.batches[1]!.facts.map((f) => f.type)).toEqual(["JournalDiverged", "LlmCallStarted"]);
    expect(inner.requests).toEqual([D, B, C]);
    expect(c.ofType("LlmCallCompleted").map((d) => d.replayed)).toEqual([true, false, false, false]);
  });

  it("sends again a request an earlier attempt sent without a reply, and keeps replaying what follows", async () => {
    const history = [
      queued(1),
      started(1, 1, hashOf(A)),
      completed(1, 1, contentRef("reply A")),
      started(1, 2, hashOf(D)),
      failed(1, 2),
      started(1, 3, hashOf(C)),
      completed(1, 3, contentRef("reply C")),
    ];
    const c = collector();
    const calls = jobCalls(c, { journal: journalFromHistory(history), replies });
    const inner = echoLlm();
    const llm = calls.llm(inner, "optimizer");
    await llm.complete(A);
    await expect(llm.complete(D)).resolves.toMatchObject({ content: "reply-1" });
    await expect(llm.complete(C)).resolves.toMatchObject({ content: "reply C" });
    expect(inner.requests).toEqual([D]);
    expect(c.ofType("JournalDiverged")).toEqual([]);
    expect(c.ofType("LlmCallCompleted").map((d) => d.replayed)).toEqual([true, false, true]);
  });

  it("replays concurrent requests that started in another order", async () => {
    const c = collector();
    const calls = jobCalls(c, { journal: journalFromHistory(crashed), replies });
    const inner = echoLlm();
    const llm = calls.llm(inner, "optimizer");
    const [b, a] = await Promise.all([llm.complete(B), llm.complete(A)]);
    expect([a.content, b.content]).toEqual(["reply A", "reply B"]);
    expect(inner.requests).toHaveLength(0);
    expect(c.ofType("LlmCallStarted").map((s) => [s.call, s.request_hash])).toEqual([
      [1, hashOf(B)],
      [2, hashOf(A)],
    ]);
  });

  it("does not replay when the run does not journal", async () => {
    const c = collector();
    const calls = jobCalls(c, { run: runCalls({ journaling: false }), journal: journalFromHistory(crashed), replies });
    const inner = echoLlm();
    await calls.llm(inner, "optimizer").complete(A);
    expect(inner.requests).toEqual([A]);
    expect(c.ofType("LlmCallCompleted")[0]!.replayed).toBe(false);
  });

  it("does not replay after an attempt that ended with a kept result", async () => {
    for (const status of ["ok", "skipped", "budget_exhausted"] as const) {
      const c = collector();
      const calls = jobCalls(c, { journal: journalFromHistory([...crashed, finished(1, status)]), replies });
      const inner = echoLlm();
      await calls.llm(inner, "optimizer").complete(A);
      expect(inner.requests, status).toEqual([A]);
    }
  });

  it("sends a request live when the journaled reply's text is missing", async () => {
    const c = collector();
    const calls = jobCalls(c, { journal: journalFromHistory(crashed), replies: new Map([[contentRef("reply B"), "reply B"]]) });
    const inner = echoLlm();
    const llm = calls.llm(inner, "optimizer");
    await expect(llm.complete(A)).resolves.toMatchObject({ content: "reply-1" });
    await expect(llm.complete(B)).resolves.toMatchObject({ content: "reply B" });
    expect(inner.requests).toEqual([A]);
    expect(c.ofType("LlmCallCompleted").map((d) => d.replayed)).toEqual([false, true]);
    expect(calls.counts).toMatchObject({ completed: 2, replayed: 1 });
  });

  it("counts only calls really answered from the journal in JournalDiverged.replayed (a missing reply is not one)", async () => {
    const c = collector();
    const calls = jobCalls(c, { journal: journalFromHistory(crashed), replies: new Map([...replies].filter(([ref]) => ref !== contentRef("reply A"))) });
    const llm = calls.llm(echoLlm(), "optimizer");
    await llm.complete(A); // live: its reply text is missing
    await llm.complete(B); // replayed
    await llm.complete(D); // diverges: the journal holds C here
    expect(c.ofType("JournalDiverged")).toEqual([{ attempt: 2, call: 3, request_hash: hashOf(D), journaled_hash: hashOf(C), replayed: 1 }]);
  });

  it("counts replayed calls toward the job budget, and a replay that spends it stops training at once", async () => {
    const [bA, bB] = [bounded("A", 10), bounded("B", 10)];
    const history = [queued(1), started(1, 1, hashOf(bA)), completed(1, 1, contentRef("reply A")), started(1, 2, hashOf(bB)), completed(1, 2, contentRef("reply B"))];
    const onBudgetExhausted = vi.fn();
    const run = runCalls({ budget: { max_tokens_per_job: 120, max_tokens_per_run: 100 } });
    const c = collector();
    const calls = jobCalls(c, { run, journal: journalFromHistory(history), replies, onBudgetExhausted });
    calls.setTraining(true);
    await calls.llm(echoLlm(), "optimizer").complete(bA); // 120 tokens, replayed: its worst case (< 100) fit both budgets
    expect(run.runBudgetSpent()).toBeNull();
    expect(run.ledger.spent.tokens).toBe(0);
    expect(onBudgetExhausted).toHaveBeenCalledTimes(1);
    expect(onBudgetExhausted).toHaveBeenCalledWith("job token budget spent: 120 of max_tokens_per_job 120");
    await expect(calls.llm(echoLlm(), "optimizer").complete(bB)).rejects.toBeInstanceOf(BudgetExhausted);
    expect(onBudgetExhausted).toHaveBeenCalledTimes(1);
  });
});

describe("hard budgets", () => {
  // Its prompt is at most 80 tokens (its bytes plus the chat format's), so its worst case is 80 + 20.
  const req = (user: string) => bounded(user, 20);
  const WORST = promptTokensAtMost(req("1").messages) + 20;

  it("the bound of a request: its worst case is its prompt's bytes plus the chat format's tokens plus max_tokens", () => {
    expect(WORST).toBe(100);
  });

  it("sends a request only when its worst case fits what the job has left; the first that cannot fit is refused unsent and stops training", async () => {
    const onBudgetExhausted = vi.fn();
    const c = collector();
    const calls = jobCalls(c, { run: runCalls({ budget: { max_tokens_per_job: 130 } }), onBudgetExhausted });
    calls.setTraining(true);
    const inner = echoLlm(); // 15 tokens a call
    const llm = calls.llm(inner, "optimizer");
    for (const n of ["1", "2", "3"]) await llm.complete(req(n)); // 0, 15 and 30 spent: each + 100 fits in 130
    expect(onBudgetExhausted).not.toHaveBeenCalled();
    const recorded = c.facts.length;
    const refusal = "job token budget: the next request may use up to 100 tokens, more than the 85 left of max_tokens_per_job 130 (80 prompt tokens at most + max_tokens 20)";
    await expect(llm.complete(req("4"))).rejects.toThrow(new BudgetExhausted(`not sent: ${refusal}`));
    expect(inner.requests).toHaveLength(3);
    expect(c.facts.length).toBe(recorded);
    expect(onBudgetExhausted).toHaveBeenCalledWith(refusal);
    expect(calls.budgetExhausted).toBe(refusal);
    expect(calls.spent.tokens).toBe(45);
    // Once stopped, every later call is refused with the same reason, without asking again.
    await expect(llm.complete(req("5"))).rejects.toThrow(`not sent: ${refusal}`);
    expect(onBudgetExhausted).toHaveBeenCalledTimes(1);
  });

  it("a request without max_tokens has no bound: under a budget it is refused, saying which setting gives it one", async () => {
    const calls = jobCalls(collector(), { run: runCalls({ budget: { max_tokens_per_run: 1_000_000 } }) });
    calls.setTraining(true);
    const inner = echoLlm();
    await expect(calls.llm(inner, "optimizer").complete(request("unbounded"))).rejects.toThrow(/no bound on its tokens.*set optimizer_kwargs\.max_tokens/);
    expect(inner.requests).toHaveLength(0);
  });

  it("concurrent requests reserve their worst case: one that fits only once others settle waits for them, and is sent then", async () => {
    const answers = [deferred<ChatResponse>(), deferred<ChatResponse>(), deferred<ChatResponse>()];
    const inner = fakeLlm((_r, _s, n) => answers[n - 1]!.promise);
    const calls = jobCalls(collector(), { run: runCalls({ budget: { max_tokens_per_job: 250 } }) });
    calls.setTraining(true);
    const llm = calls.llm(inner, "optimizer");
    const first = llm.complete(req("1"));
    const second = llm.complete(req("2"));
    const third = llm.complete(req("3")); // 200 reserved: 100 more does not fit now, but will once one settles
    await Promise.resolve();
    expect(inner.requests).toHaveLength(2);
    answers[0]!.resolve(reply("one"));
    await first;
    await vi.waitFor(() => expect(inner.requests).toHaveLength(3));
    answers[1]!.resolve(reply("two"));
    answers[2]!.resolve(reply("three"));
    await Promise.all([second, third]);
    expect(calls.spent.tokens).toBe(45);
    expect(calls.budgetExhausted).toBeNull();
  });

  it("four jobs sending at once cannot together pass the run's budget; a request that can never fit stops its job and the run starts no more jobs", async () => {
    const run = runCalls({ budget: { max_tokens_per_run: 330 } });
    const pending: ReturnType<typeof deferred<ChatResponse>>[] = [];
    const inner = fakeLlm(() => {
      const d = deferred<ChatResponse>();
      pending.push(d);
      return d.promise;
    });
    const jobs = Array.from({ length: 4 }, () => jobCalls(collector(), { run }));
    for (const job of jobs) job.setTraining(true);
    const sent = jobs.map((job, i) => job.llm(inner, "optimizer").complete(req(String(i))).then(() => "sent", (e: unknown) => (e instanceof BudgetExhausted ? "refused" : "error")));
    await Promise.resolve();
    // 3 × 100 reserved fit in 330; the fourth waits, since the others may spend less.
    expect(inner.requests).toHaveLength(3);
    expect(run.ledger.reserved.tokens).toBe(300);
    // Each of the three is billed 110 (all it reserved and more than it was expected to: the bound was 100).
    for (const d of pending.splice(0)) d.resolve(reply("r", usage(100, 10)));
    expect(await Promise.all(sent)).toEqual(["sent", "sent", "sent", "refused"]);
    expect(inner.requests).toHaveLength(3);
    expect(run.ledger.spent.tokens).toBe(330);
    expect(run.runBudgetSpent()).toBe("run token budget spent: 330 of max_tokens_per_run 330");
  });

  it("a refusal by the run's budget marks the run spent, so no new job starts", async () => {
    const run = runCalls({ budget: { max_tokens_per_run: 150 } });
    const job = jobCalls(collector(), { run });
    job.setTraining(true);
    const llm = job.llm(echoLlm(), "optimizer");
    await llm.complete(req("1")); // 15 spent: 100 more still fits
    await llm.complete(req("2")); // 30 spent: 100 more still fits
    await llm.complete(req("3"));
    await llm.complete(req("4")); // 45 + 100 ≤ 150
    await expect(llm.complete(req("5"))).rejects.toBeInstanceOf(BudgetExhausted); // 60 + 100 > 150, nothing in flight
    expect(run.runBudgetSpent()).toMatch(/^run token budget: the next request may use up to 100 tokens, more than the 90 left of max_tokens_per_run 150$/);
  });

  it("a call cut off counts at its worst case (the provider may bill it); an error reply counts nothing", async () => {
    const run = runCalls({ budget: { max_tokens_per_job: 1000, max_tokens_per_run: 1000 } });
    const calls = jobCalls(collector(), { run });
    calls.setTraining(true);
    const failing = fakeLlm(() => Promise.reject(new LlmError("server", "500 boom", 500)));
    await expect(calls.llm(failing, "optimizer").complete(req("f"))).rejects.toThrow("500 boom");
    expect([calls.spent.tokens, run.ledger.spent.tokens, run.ledger.reserved.tokens]).toEqual([0, 0, 0]);
    const controller = new AbortController();
    const cut = calls.llm(hangingLlm(), "optimizer").complete(req("a"), controller.signal);
    controller.abort("cancelled");
    await expect(cut).rejects.toThrow();
    expect([calls.spent.tokens, run.ledger.spent.tokens, run.ledger.reserved.tokens]).toEqual([WORST, WORST, 0]);
    // abortInFlight (the attempt ends) does the same for the calls still waiting.
    void calls.llm(hangingLlm(), "optimizer").complete(req("b")).catch(() => {});
    await Promise.resolve();
    expect(calls.abortInFlight("job_timeout")).toHaveLength(1);
    expect([calls.spent.tokens, run.ledger.reserved.tokens]).toEqual([2 * WORST, 0]);
  });

  it("counts what earlier attempts' cut-off calls may have cost against the job's budget", async () => {
    const calls = jobCalls(collector(), { run: runCalls({ budget: { max_tokens_per_job: 150 } }), spentBefore: { tokens: 60, cost: 0 } });
    calls.setTraining(true);
    await expect(calls.llm(echoLlm(), "optimizer").complete(req("1"))).rejects.toThrow(/the 90 left of max_tokens_per_job 150/);
  });

  it("checks a cost budget against the request's priced worst case", async () => {
    const onBudgetExhausted = vi.fn();
    // 0.001 USD a token: the worst case costs 0.1, a reply (15 tokens) 0.015.
    const calls = jobCalls(collector(), { run: runCalls({ price: priceOf(0.001), budget: { max_cost_per_job: 0.125 } }), onBudgetExhausted });
    calls.setTraining(true);
    const llm = calls.llm(echoLlm(), "optimizer");
    await llm.complete(req("1"));
    await llm.complete(req("2"));
    await expect(llm.complete(req("3"))).rejects.toBeInstanceOf(BudgetExhausted); // 0.03 + 0.1 > 0.125
    expect(onBudgetExhausted.mock.calls[0]![0]).toMatch(/^job cost budget: the next request may use up to \$0\.1000, more than the \$0\.0950 left of max_cost_per_job \$0\.125 \(80 prompt/);
  });

  it("does not block calls outside training (evaluations finish), but counts them", async () => {
    const onBudgetExhausted = vi.fn();
    const calls = jobCalls(collector(), { run: runCalls({ budget: { max_tokens_per_job: 10 } }), onBudgetExhausted });
    const inner = echoLlm();
    const llm = calls.llm(inner, "agent");
    await llm.complete(req("1"));
    expect(inner.requests).toHaveLength(1);
    expect(onBudgetExhausted).not.toHaveBeenCalled();
    calls.setTraining(true);
    await expect(llm.complete(req("2"))).rejects.toThrow("not sent: job token budget spent: 15 of max_tokens_per_job 10");
  });

  it("where the run's budget is held elsewhere (bullmq's coordinator), two workers' jobs share it: a request it refuses is not sent and stops training as a local refusal", async () => {
    // The coordinator's ledger, and a judge over it for each worker: admissions reserve there, settlements bill there.
    const held = new BudgetLedger("run", 150, null);
    const judge = (): RunBudgetJudge => ({ admit: async (worst) => held.reserve(worst), settle: (worst, billed) => held.settle(worst, billed) });
    const onBudgetExhausted = vi.fn();
    const c = collector();
    const first = jobCalls(collector(), { run: runCalls({ budget: { max_tokens_per_run: 150 } }), judge: judge() });
    const second = jobCalls(c, { run: runCalls({ budget: { max_tokens_per_run: 150 } }), judge: judge(), onBudgetExhausted });
    for (const job of [first, second]) job.setTraining(true);
    const inner = echoLlm();
    await first.llm(inner, "optimizer").complete(req("1"));
    await first.llm(inner, "optimizer").complete(req("2"));
    await first.llm(inner, "optimizer").complete(req("3")); // 45 billed on the first worker
    await second.llm(inner, "optimizer").complete(req("4")); // 60 billed in all: 100 more would pass 150
    // The second worker alone spent 15: its own ledger would send it.
    await expect(second.llm(inner, "optimizer").complete(req("5"))).rejects.toBeInstanceOf(BudgetExhausted);
    expect(inner.requests).toHaveLength(4);
    expect(held.spent.tokens).toBe(60);
    expect(held.reserved.tokens).toBe(0);
    expect(onBudgetExhausted.mock.calls[0]![0]).toMatch(/^run token budget: the next request may use up to 100 tokens, more than the 90 left of max_tokens_per_run 150 \(\d+ prompt tokens at most \+ max_tokens 20\)$/);
    // Nothing recorded for it, as when this process refuses a request.
    expect(c.ofType("LlmCallStarted").map((s) => s.call)).toEqual([1]);
  });

  it("tells the judge of no reservation for a request it never admitted (a job budget, no run budget), only of what it billed", async () => {
    const admitted: unknown[] = [];
    const settled: [unknown, unknown][] = [];
    const judge: RunBudgetJudge = {
      admit: async (worst) => {
        admitted.push(worst);
        return null;
      },
      settle: (worst, billed) => settled.push([worst, billed]),
    };
    const calls = jobCalls(collector(), { run: runCalls({ budget: { max_tokens_per_job: 1000 } }), judge });
    calls.setTraining(true);
    const llm = calls.llm(echoLlm(), "optimizer");
    await llm.complete(req("1"));
    await expect(calls.llm(fakeLlm(() => Promise.reject(new LlmError("server", "boom"))), "optimizer").complete(req("2"))).rejects.toThrow("boom");
    // The job's own budget reserved each request's worst case; the run's judge was asked nothing.
    expect(admitted).toEqual([]);
    expect(settled).toEqual([
      [{ tokens: 0, cost: 0 }, { tokens: 15, cost: expect.any(Number) }],
      [{ tokens: 0, cost: 0 }, { tokens: 0, cost: 0 }],
    ]);
  });

  it("releases at the judge what it admitted, when the run's budget is held there", async () => {
    const held = new BudgetLedger("run", 1000, null);
    const settled: [{ tokens: number }, { tokens: number }][] = [];
    const judge: RunBudgetJudge = {
      admit: async (worst) => held.reserve(worst),
      settle: (worst, billed) => {
        settled.push([worst, billed]);
        held.settle(worst, billed);
      },
    };
    const calls = jobCalls(collector(), { run: runCalls({ budget: { max_tokens_per_run: 1000 } }), judge });
    calls.setTraining(true);
    await calls.llm(echoLlm(), "optimizer").complete(req("1"));
    expect(settled).toHaveLength(1);
    expect(settled[0]![0].tokens).toBe(WORST);
    expect(held.reserved.tokens).toBe(0);
    expect(held.spent.tokens).toBe(15);
  });

  it("a refused call takes no position: the next sent call follows the last one sent", async () => {
    const c = collector();
    const calls = jobCalls(c, { run: runCalls({ budget: { max_tokens_per_job: 100 } }) });
    calls.setTraining(true);
    const llm = calls.llm(echoLlm(), "optimizer");
    await llm.complete(req("1"));
    await expect(llm.complete(req("2"))).rejects.toBeInstanceOf(BudgetExhausted);
    calls.setTraining(false);
    await llm.complete(req("3"));
    expect(c.ofType("LlmCallStarted").map((s) => [s.call, s.max_tokens])).toEqual([
      [1, 20],
      [2, 20],
    ]);
  });
});

describe("optimizer replies", () => {
  it("records an unusable reply as ReplyUnusable and counts both kinds", () => {
    const c = collector();
    const calls = jobCalls(c);
    calls.noteReply(true, "");
    calls.noteReply(false, "unreadable reply: no <variable> block");
    expect(c.facts).toEqual([{ type: "ReplyUnusable", data: { attempt: 2, reason: "unreadable reply: no <variable> block" } }]);
    expect(calls.counts).toMatchObject({ usable: 1, unusable: 1 });
    expect(calls.lastUnusable).toBe("unreadable reply: no <variable> block");
  });

  const proposal = (over: Partial<Proposal>): Proposal => ({ update: {}, reply: "", reasoning: "", terminated: false, notes: [], ...over });

  it("unusableReason: a change or TERMINATE is usable, whatever the notes", () => {
    expect(unusableReason(proposal({ terminated: true, notes: ["unreadable reply: x"] }))).toBeNull();
    expect(unusableReason(proposal({ update: { x: 2 }, notes: ["y: not a number"] }))).toBeNull();
  });

  it("unusableReason: no change names the unreadable reply, else every note", () => {
    expect(unusableReason(proposal({ notes: ["y: not a number", "unreadable reply: no JSON object"] }))).toBe("unreadable reply: no JSON object");
    expect(unusableReason(proposal({ notes: ["y: not a number", "z: unknown parameter"] }))).toBe("no proposed value could be used: y: not a number; z: unknown parameter");
  });

  it("unusableReason: an empty reply without notes is not counted unusable", () => {
    expect(unusableReason(proposal({}))).toBeNull();
  });
});
