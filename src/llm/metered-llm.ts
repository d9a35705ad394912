/** Wraps an LLM so that every completed call is reported (role, model, tokens, latency) and counted. */
import type { ChatRequest, ChatResponse, Llm, LlmRole } from "./llm.js";

export interface LlmCallRecord {
  readonly role: LlmRole;
  readonly model: string;
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  readonly latency_ms: number;
  readonly estimated: boolean;
}

export function meteredLlm(inner: Llm, role: LlmRole, report: (call: LlmCallRecord) => void): Llm {
  return {
    model: inner.model,
    async complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
      const started = performance.now();
      const response = await inner.complete(request, signal);
      report({
        role,
        model: response.model,
        ...response.usage,
        latency_ms: Math.round(performance.now() - started),
        estimated: response.estimated,
      });
      return response;
    },
  };
}
