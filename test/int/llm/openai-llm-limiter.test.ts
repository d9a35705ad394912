/** The run's request limiter as the adapter uses it: shared by jobs, held per HTTP request, abortable while waiting. */
import { describe, expect, it, vi } from "vitest";
import { llmFactory } from "../../../adapters/llm/index.js";
import { createOpenAiLlm } from "../../../adapters/llm/openai-llm.js";
import { parseConfigText } from "../../../src/config/config-file.js";
import type { JobSpec } from "../../../src/config/matrix.js";
import { resolveRunConfig } from "../../../src/config/run-config.js";
import { createRequestLimiter } from "../../../src/llm/request-limiter.js";
import { fakeOpenAiServers } from "../../support/fake-openai-server.js";

const server = fakeOpenAiServers();

const messages = [{ role: "user" as const, content: "hello" }];
const slowish = { reply: "ok", delayMs: 150 };

describe("request limiter in the adapter", () => {
  it("one limiter shared by two jobs' LLMs keeps their requests together within maxConcurrency", async () => {
    const s = await server([], { fallback: slowish });
    const limiter = createRequestLimiter({ maxConcurrency: 2 });
    const jobs = [1, 2].map(() => createOpenAiLlm({ model: "m", apiKey: "k", baseURL: s.baseURL, limiter }));
    const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => jobs[i % 2]!.complete({ messages })));
    expect(replies.map((r) => r.content)).toEqual(Array(8).fill("ok"));
    expect(s.peakInFlight).toBe(2);
    expect(limiter.inFlight).toBe(0);
  });

  it("gives the slot back during backoff, so a retrying call does not hold up others", async () => {
    const s = await server([{ status: 429, message: "later", headers: { "retry-after": "1" } }, "second", "first again"]);
    const limiter = createRequestLimiter({ maxConcurrency: 1 });
    const llm = createOpenAiLlm({ model: "m", apiKey: "k", baseURL: s.baseURL, limiter });
    const first = llm.complete({ messages });
    await vi.waitFor(() => expect(s.received).toHaveLength(1), { interval: 5 });
    const second = await llm.complete({ messages });
    expect(second.content).toBe("second");
    expect(await first).toMatchObject({ content: "first again", retries: 1 });
  });

  it("an aborted call waiting for a slot rejects at once and never reaches the server", async () => {
    const s = await server([{ reply: "held", delayMs: 300 }], { fallback: "ok" });
    const limiter = createRequestLimiter({ maxConcurrency: 1 });
    const llm = createOpenAiLlm({ model: "m", apiKey: "k", baseURL: s.baseURL, limiter });
    const holder = llm.complete({ messages });
    await vi.waitFor(() => expect(s.received).toHaveLength(1), { interval: 5 });
    const controller = new AbortController();
    const waiting = llm.complete({ messages }, controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ kind: "aborted", retries: 0 });
    expect((await holder).content).toBe("held");
    expect(s.received).toHaveLength(1);
  });

  it("llmFactory gives every job of a run the same client and limiter", async () => {
    const s = await server([], { fallback: slowish });
    const config = resolveRunConfig(parseConfigText("c.yaml", `mode: real\ntasks: [internal:numeric_param]\nllm: {model: m, base_url: "${s.baseURL}", api_key_env: K}\n`)).config;
    const forJob = await llmFactory(config, { K: "secret" }, { limits: { maxConcurrency: 1 }, backoffBaseMs: 1 });
    const [a, b] = [forJob({} as JobSpec), forJob({} as JobSpec)];
    await Promise.all([a, b, a, b].map((llm) => llm.complete({ messages })));
    expect(s.received).toHaveLength(4);
    expect(s.peakInFlight).toBe(1);
  });
});
