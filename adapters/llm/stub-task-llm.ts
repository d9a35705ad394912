/**
 * What mode stub answers a task's agent and guide: no network, the same reply for the same
 * (job seed, request) whatever order or how often it is asked, and a reply that says it is a stub
 * answer, so a stub run checks the wiring end to end without passing for a model's work.
 */
import { createHash } from "node:crypto";
import { estimateTokens, type ChatRequest, type ChatResponse, type Llm } from "../../src/llm/llm.js";
import { STUB_MODEL } from "./stub-llm.js";

/** Every stub answer starts with this, so neither a person nor a guide can take it for a model's. */
export const STUB_ANSWER_PREFIX = "[stub answer]";

export function stubTaskAnswer(seed: number, request: ChatRequest): string {
  const canonical = JSON.stringify([seed, request.messages.map((m) => [m.role, m.content]), request.maxTokens ?? null, request.temperature ?? null, request.responseFormat ?? null]);
  const digest = createHash("sha256").update(canonical).digest("hex").slice(0, 12);
  const text = `${STUB_ANSWER_PREFIX} ${digest}`;
  // A request for a JSON object gets one.
  return request.responseFormat === "json_object" ? JSON.stringify({ answer: text }) : text;
}

export function createStubTaskLlm(seed: number): Llm {
  return {
    model: STUB_MODEL,
    complete(request: ChatRequest): Promise<ChatResponse> {
      const content = stubTaskAnswer(seed, request);
      const prompt_tokens = estimateTokens(request.messages.map((m) => `${m.role}: ${m.content}`).join("\n"));
      const completion_tokens = estimateTokens(content);
      return Promise.resolve({ content, model: STUB_MODEL, estimated: true, usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens } });
    },
  };
}
