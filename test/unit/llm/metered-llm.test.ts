/** The metering decorator: one report per completed call with role, model, tokens and latency. */
import { describe, expect, it } from "vitest";
import type { ChatRequest, ChatResponse, Llm } from "../../../src/llm/llm.js";
import { meteredLlm, type LlmCallRecord } from "../../../src/llm/metered-llm.js";

function slowLlm(delayMs: number, response: Partial<ChatResponse> = {}): Llm & { seen: { request: ChatRequest; signal?: AbortSignal }[] } {
  const seen: { request: ChatRequest; signal?: AbortSignal }[] = [];
  return {
    model: "inner-model",
    seen,
    async complete(request, signal) {
      seen.push({ request, ...(signal ? { signal } : {}) });
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return { content: "ok", model: "served-model", estimated: false, usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 }, ...response };
    },
  };
}

describe("meteredLlm", () => {
  it("reports role, model, tokens and latency for each call, and returns the response unchanged", async () => {
    const inner = slowLlm(40);
    const calls: LlmCallRecord[] = [];
    const llm = meteredLlm(inner, "optimizer", (call) => calls.push(call));
    expect(llm.model).toBe("inner-model");
    const request: ChatRequest = { messages: [{ role: "user", content: "hi" }], maxTokens: 5 };
    const signal = new AbortController().signal;
    const response = await llm.complete(request, signal);
    expect(response.content).toBe("ok");
    expect(inner.seen).toEqual([{ request, signal }]);
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call).toMatchObject({ role: "optimizer", model: "served-model", prompt_tokens: 11, completion_tokens: 7, total_tokens: 18, estimated: false });
    expect(Number.isInteger(call!.latency_ms)).toBe(true);
    expect(call!.latency_ms).toBeGreaterThanOrEqual(30);
    expect(call!.latency_ms).toBeLessThan(5000);

    await llm.complete(request);
    expect(calls).toHaveLength(2);
  });

  it("keeps the role it was made with and passes the estimated flag through", async () => {
    const calls: LlmCallRecord[] = [];
    const llm = meteredLlm(slowLlm(0, { estimated: true, model: "stub" }), "guide", (call) => calls.push(call));
    await llm.complete({ messages: [] });
    expect(calls[0]).toMatchObject({ role: "guide", model: "stub", estimated: true });
    expect(calls[0]!.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it("does not report a call that failed", async () => {
    const calls: LlmCallRecord[] = [];
    const failing: Llm = {
      model: "m",
      complete: async () => {
        throw new Error("boom");
      },
    };
    await expect(meteredLlm(failing, "agent", (call) => calls.push(call)).complete({ messages: [] })).rejects.toThrow("boom");
    expect(calls).toEqual([]);
  });
});
