/**
 * JobCalls.embed: an embedding is recorded like any call (Started before it leaves, with role
 * `embedding`, its text as the one message; Completed with its prompt tokens and priced cost),
 * answered from the journal on a resumed attempt, held to the job's budget by its prompt, and kept
 * out of the optimizer's counts.
 */
import { describe, expect, it } from "vitest";
import { contentRef } from "../../../src/events/content-ref.js";
import { journalFromHistory } from "../../../src/llm/call-journal.js";
import { BudgetExhausted } from "../../../src/llm/job-calls.js";
import type { Embedder, EmbeddingResponse } from "../../../src/llm/llm.js";
import { embeddingRequestHash, requestHash } from "../../../src/llm/request-hash.js";
import { promptTokensAtMost } from "../../../src/llm/request-worst-case.js";
import { costOf, loadPriceTable } from "../../../src/llm/pricing.js";
import { collector, completed, jobCalls, queued, runCalls, type CallFact } from "./call-fakes.js";

const EMBED_MODEL = "embed-model";

function fakeEmbedder(vector: (text: string) => number[] = (t) => [t.length, 1]) {
  const inputs: string[] = [];
  const embedder: Embedder & { inputs: string[] } = {
    model: EMBED_MODEL,
    inputs,
    embed(request): Promise<EmbeddingResponse> {
      inputs.push(request.input);
      return Promise.resolve({ embedding: vector(request.input), usage: { prompt_tokens: 6, completion_tokens: 0, total_tokens: 6 }, model: EMBED_MODEL, estimated: false });
    },
  };
  return embedder;
}

describe("an embedding call", () => {
  it("is recorded with role embedding: its text as the one message, max_tokens 0, a hash of its own; the vector is the reply", async () => {
    const c = collector();
    const calls = jobCalls(c, { run: runCalls({ price: (_m, use) => use.total_tokens * 0.5 }) });
    const inner = fakeEmbedder();
    const reply = await calls.embed(inner, { input: "{'x': 1}" });

    expect(reply.embedding).toEqual([8, 1]);
    expect(inner.inputs).toEqual(["{'x': 1}"]);
    const [start, done] = c.facts as CallFact[];
    const hash = embeddingRequestHash(EMBED_MODEL, { input: "{'x': 1}" });
    expect(start).toEqual({
      type: "LlmCallStarted",
      data: { attempt: 2, call: 1, role: "embedding", model: EMBED_MODEL, request_hash: hash, messages: [{ role: "user", ref: contentRef("{'x': 1}") }], max_tokens: 0, prompt_tokens_at_most: promptTokensAtMost([{ role: "user", content: "{'x': 1}" }]) },
    });
    // Not the hash of a chat request with the same text.
    expect(hash).not.toBe(requestHash(EMBED_MODEL, { messages: [{ role: "user", content: "{'x': 1}" }], maxTokens: 0 }));
    expect(done).toMatchObject({ type: "LlmCallCompleted", data: { role: "embedding", prompt_tokens: 6, completion_tokens: 0, total_tokens: 6, cost_usd: 3, reply_ref: contentRef("[8,1]"), replayed: false } });
    expect(c.contents.get(contentRef("[8,1]"))).toBe("[8,1]");
    // The optimizer's counts (the training verdict) do not count it.
    expect(calls.counts.started).toBe(0);
    expect(calls.trainerSideCounts).toMatchObject({ started: 1, completed: 1 });
  });

  it("a resumed attempt gets the vector from the journal without sending the request", async () => {
    const input = "{'x': 2}";
    const vectorText = "[0.25,-1]";
    const history = [
      queued(1),
      { type: "LlmCallStarted" as const, data: { attempt: 1, call: 1, role: "embedding", model: EMBED_MODEL, request_hash: embeddingRequestHash(EMBED_MODEL, { input }), messages: [] } },
      completed(1, 1, contentRef(vectorText), { role: "embedding", model: EMBED_MODEL, prompt_tokens: 6, completion_tokens: 0, total_tokens: 6, cached_tokens: 0 }),
    ];
    const c = collector();
    const calls = jobCalls(c, { journal: journalFromHistory(history), replies: new Map([[contentRef(vectorText), vectorText]]) });
    const inner = fakeEmbedder();
    const reply = await calls.embed(inner, { input });
    expect(inner.inputs).toHaveLength(0);
    expect(reply.embedding).toEqual([0.25, -1]);
    expect(c.ofType("LlmCallCompleted")[0]).toMatchObject({ role: "embedding", replayed: true, total_tokens: 6 });
  });

  it("during training it is not sent when its prompt cannot fit the job's token budget", async () => {
    const c = collector();
    const reasons: string[] = [];
    const calls = jobCalls(c, { run: runCalls({ budget: { max_tokens_per_job: 20 } }), onBudgetExhausted: (r) => reasons.push(r) });
    calls.setTraining(true);
    const inner = fakeEmbedder();
    await expect(calls.embed(inner, { input: "a text far longer than twenty tokens can hold, surely" })).rejects.toBeInstanceOf(BudgetExhausted);
    expect(inner.inputs).toHaveLength(0);
    expect(c.facts).toHaveLength(0);
    expect(reasons).toHaveLength(1);
  });

  it("a reply that is not a list of numbers is an error", async () => {
    const c = collector();
    const calls = jobCalls(c);
    const inner = fakeEmbedder(() => ["x" as unknown as number]);
    await expect(calls.embed(inner, { input: "t" })).rejects.toThrow("the embedding is not a list of numbers");
  });
});

describe("embedding prices", () => {
  it("the shipped table prices the common embedding models by their prompt tokens (POLCA's default through its gemini/ prefix)", () => {
    const table = loadPriceTable();
    const million = { prompt_tokens: 1_000_000, completion_tokens: 0 };
    expect(costOf(table, "gemini/gemini-embedding-001", million)).toBeCloseTo(0.15, 12);
    expect(costOf(table, "text-embedding-3-small", million)).toBeCloseTo(0.02, 12);
    expect(costOf(table, "text-embedding-3-large", million)).toBeCloseTo(0.13, 12);
  });
});
