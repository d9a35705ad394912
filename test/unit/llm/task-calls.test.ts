/**
 * A task's LLM calls (TaskCalls on JobCalls): each is recorded with its role and a slot (batch,
 * example, call) that does not depend on the order concurrent examples send in; a re-run's journal
 * answers them by slot; they are budgeted in every phase; the stub answers them from (seed, request).
 * And scoreDataset: the same result at any concurrency.
 */
import { describe, expect, it } from "vitest";
import { createStubTaskLlm, STUB_ANSWER_PREFIX } from "../../../adapters/llm/stub-task-llm.js";
import type { EventBody } from "../../../src/events/event-schema.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import type { TaskLlmRequest } from "../../../src/domain/task-llm.js";
import { CallJournal, journalFromHistory } from "../../../src/llm/call-journal.js";
import { BudgetExhausted } from "../../../src/llm/job-calls.js";
import { TaskCalls } from "../../../src/llm/task-calls.js";
import { scoreDataset } from "../../../src/tasks/score-dataset.js";
import { collector, completed, fakeLlm, jobCalls, MODEL, queued, reply, runCalls, usage } from "./call-fakes.js";

const ask = (text: string, extra: Partial<TaskLlmRequest> = {}): TaskLlmRequest => ({ role: "agent", messages: [{ role: "user", content: text }], maxTokens: 10, ...extra });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const startedAt = (attempt: number, call: number, hash: string, slot: string): EventBody => ({
  type: "LlmCallStarted",
  data: { attempt, call, role: "agent", model: MODEL, request_hash: hash, messages: [], slot },
});

describe("the journal of task calls", () => {
  it("keeps each slot's latest reply across attempts, apart from the optimizer's positions", () => {
    const history: EventBody[] = [queued(1), startedAt(1, 1, "a", "1/0/0"), completed(1, 1, "ra"), startedAt(1, 2, "b", "1/1/0"), completed(1, 2, "rb"), queued(2), startedAt(2, 1, "b2", "1/1/0"), completed(2, 1, "rb2")];
    const { entries } = journalFromHistory(history);
    expect(entries.map((e) => [e.slot, e.requestHash]).sort()).toEqual([
      ["1/0/0", "a"],
      ["1/1/0", "b2"],
    ]);
  });

  it("answers a slot whose request is the same, in any order; another request or an unknown slot goes live without ending the replay", () => {
    const { entries } = journalFromHistory([queued(1), startedAt(1, 1, "a", "1/0/0"), completed(1, 1, "ra"), startedAt(1, 2, "b", "1/1/0"), completed(1, 2, "rb"), startedAt(1, 3, "c", "1/2/0"), completed(1, 3, "rc")]);
    const journal = new CallJournal({ entries, unanswered: [] });
    expect(journal.answer(1, "z", "1/3/0")).toEqual({ kind: "live" });
    expect(journal.answer(2, "b", "1/1/0").kind).toBe("replay");
    expect(journal.answer(3, "other", "1/0/0")).toEqual({ kind: "live" });
    expect(journal.answer(4, "c", "1/2/0").kind).toBe("replay");
    // Answered once: the same slot asked again goes live.
    expect(journal.answer(5, "b", "1/1/0")).toEqual({ kind: "live" });
  });
});

describe("TaskCalls", () => {
  it("records each call with its role and a slot by batch, example and call, whatever order the examples send in", async () => {
    const c = collector();
    const calls = jobCalls(c);
    const task = new TaskCalls(calls, () => fakeLlm((r) => reply(`answer to ${r.messages[0]!.content}`)), false);
    const batch = task.nextBatch();
    // Example 1 sends first, example 0 second and then calls again (its guide).
    const one = batch(1).complete(ask("q1"));
    const zero = batch(0);
    const first = await zero.complete(ask("q0"));
    await zero.complete(ask("judge q0", { role: "guide" }));
    expect((await one).content).toBe("answer to q1");
    expect(first).toEqual({ content: "answer to q0", usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }, model: MODEL, stub: false });
    const started = c.ofType("LlmCallStarted").map((d) => [d.call, d.role, d.slot]);
    expect(started).toEqual([
      [1, "agent", "1/1/0"],
      [2, "agent", "1/0/0"],
      [3, "guide", "1/0/1"],
    ]);
    await task.nextBatch()(0).complete(ask("next"));
    expect(c.ofType("LlmCallStarted").at(-1)!.slot).toBe("2/0/0");
    // Counted apart from the optimizer's calls (whose counts decide training's verdict).
    expect(calls.counts.started).toBe(0);
    expect(calls.taskCounts.completed).toBe(4);
  });

  it("a re-run answers the calls journaled at their slots without sending them", async () => {
    const first = collector();
    const task1 = new TaskCalls(jobCalls(first, { attempt: 1 }), () => fakeLlm((r) => reply(`live ${r.messages[0]!.content}`)), false);
    const b1 = task1.nextBatch();
    await Promise.all([b1(0).complete(ask("q0")), b1(1).complete(ask("q1"))]);
    const history: EventBody[] = [queued(1), ...first.facts.map((f) => f as EventBody)];
    const journal = journalFromHistory(history);
    const second = collector();
    const sent = fakeLlm((r) => reply(`again ${r.messages[0]!.content}`));
    const task2 = new TaskCalls(jobCalls(second, { attempt: 2, journal, replies: first.contents }), () => sent, false);
    const b2 = task2.nextBatch();
    // The other order, and one example the first attempt never reached.
    const [r2, r1, r0] = await Promise.all([b2(2).complete(ask("q2")), b2(1).complete(ask("q1")), b2(0).complete(ask("q0"))]);
    expect([r0.content, r1.content, r2.content]).toEqual(["live q0", "live q1", "again q2"]);
    expect(sent.requests).toHaveLength(1);
    expect(second.ofType("LlmCallCompleted").filter((d) => d.replayed === true)).toHaveLength(2);
  });

  it("is budgeted outside training too: a call that cannot fit is not sent", async () => {
    const c = collector();
    const calls = jobCalls(c, { run: runCalls({ budget: { max_tokens_per_job: 100 } }) });
    const inner = fakeLlm(() => reply("ok", usage(10, 5)));
    const batch = new TaskCalls(calls, () => inner, false).nextBatch();
    await batch(0).complete(ask("x", { maxTokens: 5 }));
    await expect(batch(1).complete(ask("y".repeat(1000), { maxTokens: 5 }))).rejects.toThrow(BudgetExhausted);
    // No bound on its tokens: no budget can admit it, and the message says what the task must give.
    await expect(new TaskCalls(jobCalls(collector(), { run: runCalls({ budget: { max_tokens_per_job: 1000 } }) }), () => inner, false).nextBatch()(0).complete(ask("z", { maxTokens: undefined }))).rejects.toThrow(/task's agent or guide without maxTokens/);
    expect(inner.requests).toHaveLength(1);
  });
});

describe("the stub's answers to a task", () => {
  it("depend on the seed and the request alone, and say they are the stub's", async () => {
    const request = { messages: [{ role: "user" as const, content: "capital of Peru?" }], maxTokens: 5 };
    const a = await createStubTaskLlm(7).complete(request);
    expect(a.content.startsWith(STUB_ANSWER_PREFIX)).toBe(true);
    expect((await createStubTaskLlm(7).complete(request)).content).toBe(a.content);
    expect((await createStubTaskLlm(8).complete(request)).content).not.toBe(a.content);
    expect((await createStubTaskLlm(7).complete({ ...request, messages: [{ role: "user", content: "capital of Chile?" }] })).content).not.toBe(a.content);
    expect(a).toMatchObject({ model: "stub", estimated: true });
    expect(JSON.parse((await createStubTaskLlm(7).complete({ ...request, responseFormat: "json_object" })).content)).toHaveProperty("answer");
  });
});

describe("scoreDataset at any concurrency", () => {
  /** Examples answer in reverse order of their index; example `failAt` throws. */
  const bundle = (failAt: number | null, started: number[]): TaskBundle =>
    ({
      parameters: [],
      agent: {
        name: "slow-first",
        async run(input: unknown) {
          const i = input as number;
          started.push(i);
          await sleep((10 - i) * 3);
          if (i === failAt) throw new Error(`boom ${i}`);
          return i * 2;
        },
      },
      guide: { name: "g", evaluate: (_input: unknown, response: unknown) => ({ score: Number(response), feedback: `got ${String(response)}` }) },
      train_dataset: { inputs: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], infos: Array(10).fill(null) },
    }) as unknown as TaskBundle;
  const split = (b: TaskBundle) => ({ name: "train_dataset", dataset: b.train_dataset });

  it("gives the same score, feedback and example scores at 1, 3 and 10 examples at once", async () => {
    const results = [];
    for (const concurrency of [1, 3, 10]) {
      const b = bundle(null, []);
      results.push(await scoreDataset(b, {}, split(b), {}, { concurrency }));
    }
    expect(results[0]!.score).toBe(9);
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
  });

  it("ends at the first example by index that fails, as one at a time does", async () => {
    const results = [];
    for (const concurrency of [1, 4]) {
      const started: number[] = [];
      const b = bundle(5, started);
      results.push(await scoreDataset(b, {}, split(b), {}, { concurrency }));
      // One at a time, nothing starts after the failure (at 4, lanes already running may finish theirs).
      if (concurrency === 1) expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    }
    expect(results[0]).toEqual({ split: "train_dataset", score: null, feedback: "train_dataset: agent_error[5]: boom 5", exampleScores: [0, 2, 4, 6, 8] });
    expect(results[1]).toEqual(results[0]);
  });

  it("hands each example its own LLM, by index", async () => {
    const seen: string[] = [];
    const b = {
      ...bundle(null, []),
      agent: { name: "a", run: async (input: unknown, _v: unknown, context: { llm?: { complete: (r: TaskLlmRequest) => Promise<{ content: string }> } }) => Number((await context.llm!.complete(ask(String(input)))).content) },
    } as unknown as TaskBundle;
    const result = await scoreDataset(b, {}, split(b), {}, {
      concurrency: 4,
      llmFor: (i) => ({
        complete: async () => {
          seen.push(`llm ${i}`);
          return { content: String(i * 10), usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, model: "m", stub: false };
        },
      }),
    });
    expect(result.exampleScores).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
    expect(seen.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `llm ${i}`).sort());
  });
});
