/**
 * JobCalls: every LLM call of an attempt recorded around the request (Started before it leaves,
 * then exactly one outcome), replays from the journal of interrupted attempts, job and run budgets,
 * the run-stopping error, and the optimizer replies' usability.
 */
import { describe, expect, it, vi } from "vitest";
import { contentRef } from "../../../src/events/content-ref.js";
import { unusableReason } from "../../../src/engine/trainer-context.js";
import { journalFromHistory } from "../../../src/llm/call-journal.js";
import { BudgetExhausted } from "../../../src/llm/job-calls.js";
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
        data: { attempt: 2, call: 1, role: "optimizer", model: MODEL, request_hash: hashOf(req), messages: [{ role: "system", ref: systemRef }, { role: "user", ref: userRef }] },
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
    const onBudgetExhausted = vi.fn();
    const run = runCalls({ budget: { max_tokens_per_job: 120, max_tokens_per_run: 100 } });
    const c = collector();
    const calls = jobCalls(c, { run, journal: journalFromHistory(crashed), replies, onBudgetExhausted });
    calls.setTraining(true);
    await calls.llm(echoLlm(), "optimizer").complete(A); // 120 tokens, replayed
    expect(run.runBudgetSpent()).toBeNull();
    expect(onBudgetExhausted).toHaveBeenCalledTimes(1);
    expect(onBudgetExhausted).toHaveBeenCalledWith("job token budget spent: 120 of max_tokens_per_job 120");
    await expect(calls.llm(echoLlm(), "optimizer").complete(B)).rejects.toBeInstanceOf(BudgetExhausted);
    expect(onBudgetExhausted).toHaveBeenCalledTimes(1);
  });
});

describe("budgets", () => {
  it("stops training once the job's token budget is spent: the next call is refused unsent", async () => {
    const onBudgetExhausted = vi.fn();
    const c = collector();
    const calls = jobCalls(c, { run: runCalls({ budget: { max_tokens_per_job: 30 } }), onBudgetExhausted });
    calls.setTraining(true);
    const inner = echoLlm(); // 15 tokens a call
    const llm = calls.llm(inner, "optimizer");
    await llm.complete(request("1"));
    expect(onBudgetExhausted).not.toHaveBeenCalled();
    expect(calls.budgetExhausted).toBeNull();
    await llm.complete(request("2"));
    // Called right after the completion that spent it (the engine then aborts training).
    expect(onBudgetExhausted).toHaveBeenCalledTimes(1);
    expect(onBudgetExhausted.mock.calls[0]![0]).toMatch(/max_tokens_per_job 30/);
    expect(calls.budgetExhausted).toBe("job token budget spent: 30 of max_tokens_per_job 30");

    const recorded = c.facts.length;
    await expect(llm.complete(request("3"))).rejects.toThrow(new BudgetExhausted("not sent: job token budget spent: 30 of max_tokens_per_job 30"));
    expect(inner.requests).toHaveLength(2);
    expect(c.facts.length).toBe(recorded);
    expect(onBudgetExhausted).toHaveBeenCalledTimes(1);
  });

  it("a refused call takes no position: the next sent call follows the last one sent", async () => {
    const c = collector();
    const calls = jobCalls(c, { run: runCalls({ budget: { max_tokens_per_job: 15 } }) });
    calls.setTraining(true);
    const llm = calls.llm(echoLlm(), "optimizer");
    await llm.complete(request("1"));
    await expect(llm.complete(request("2"))).rejects.toBeInstanceOf(BudgetExhausted);
    await expect(llm.complete(request("3"), AbortSignal.abort())).rejects.toThrow();
    calls.setTraining(false);
    await llm.complete(request("4"));
    expect(c.ofType("LlmCallStarted").map((s) => s.call)).toEqual([1, 2]);
    expect(calls.counts.started).toBe(2);
  });

  it("does not block calls outside training (evaluations finish)", async () => {
    const onBudgetExhausted = vi.fn();
    const calls = jobCalls(collector(), { run: runCalls({ budget: { max_tokens_per_job: 10 } }), onBudgetExhausted });
    const inner = echoLlm();
    const llm = calls.llm(inner, "agent");
    await llm.complete(request("1"));
    await llm.complete(request("2"));
    expect(inner.requests).toHaveLength(2);
    expect(onBudgetExhausted).not.toHaveBeenCalled();
    expect(calls.budgetExhausted).toBeNull();

    // The tokens counted: back in training, the next call is refused.
    calls.setTraining(true);
    await expect(llm.complete(request("3"))).rejects.toBeInstanceOf(BudgetExhausted);
    expect(onBudgetExhausted).toHaveBeenCalledTimes(1);
    calls.setTraining(false);
    await expect(llm.complete(request("4"))).resolves.toBeDefined();
  });

  it("stops training on the job's cost budget", async () => {
    const onBudgetExhausted = vi.fn();
    const calls = jobCalls(collector(), { run: runCalls({ price: () => 0.02, budget: { max_cost_per_job: 0.05 } }), onBudgetExhausted });
    calls.setTraining(true);
    const llm = calls.llm(echoLlm(), "optimizer");
    await llm.complete(request("1"));
    await llm.complete(request("2"));
    expect(onBudgetExhausted).not.toHaveBeenCalled();
    await llm.complete(request("3"));
    expect(onBudgetExhausted).toHaveBeenCalledWith("job cost budget spent: $0.0600 of max_cost_per_job $0.05");
  });

  it("stops every job's training once the run's budget is spent, counting only billed calls", async () => {
    const run = runCalls({ budget: { max_tokens_per_run: 40 } });
    const stopped1 = vi.fn();
    const stopped2 = vi.fn();
    const job1 = jobCalls(collector(), { run, onBudgetExhausted: stopped1 });
    const job2 = jobCalls(collector(), { run, onBudgetExhausted: stopped2 });
    job1.setTraining(true);
    job2.setTraining(true);
    await job1.llm(echoLlm(), "optimizer").complete(request("1"));
    await job2.llm(echoLlm(), "optimizer").complete(request("2"));
    expect(run.runBudgetSpent()).toBeNull();
    await job1.llm(echoLlm(), "optimizer").complete(request("3"));
    expect(run.runBudgetSpent()).toBe("run token budget spent: 45 of max_tokens_per_run 40");
    expect(stopped1).toHaveBeenCalledWith("run token budget spent: 45 of max_tokens_per_run 40");

    const inner = echoLlm();
    await expect(job2.llm(inner, "optimizer").complete(request("4"))).rejects.toThrow("not sent: run token budget spent: 45 of max_tokens_per_run 40");
    expect(inner.requests).toHaveLength(0);
    expect(stopped2).toHaveBeenCalledTimes(1);
  });

  it("records an unknown cost as null, and counts it as 0 against cost budgets (the CLI refuses such budgets up front)", async () => {
    const onBudgetExhausted = vi.fn();
    const run = runCalls({ price: () => null, budget: { max_cost_per_job: 0.01, max_cost_per_run: 0.01 } });
    const c = collector();
    const calls = jobCalls(c, { run, onBudgetExhausted });
    calls.setTraining(true);
    const llm = calls.llm(echoLlm(), "optimizer");
    for (let i = 0; i < 3; i++) await llm.complete(request(String(i)));
    expect(c.ofType("LlmCallCompleted").map((d) => d.cost_usd)).toEqual([null, null, null]);
    expect(run.runBudgetSpent()).toBeNull();
    expect(onBudgetExhausted).not.toHaveBeenCalled();
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
