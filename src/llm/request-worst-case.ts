/**
 * The most one request can be billed, known before it is sent. trace-bench has no tokenizer for
 * the providers' models, so the prompt is bounded, not counted: one token per UTF-8 byte of each
 * message's text (byte-level BPE tokenizers such as OpenAI's, and byte-fallback ones, never make
 * more tokens than bytes), plus the chat format's own tokens per message and per request. The
 * completion is bounded by the request's max_tokens; a request without one has no bound.
 */
import type { ChatMessage, ChatRequest } from "./llm.js";

/** Role markers and separators a chat template adds around each message (OpenAI's adds 3 or 4). */
export const MESSAGE_FORMAT_TOKENS = 8;
/** What a template adds once per request (the reply's priming, a default system header). */
export const REQUEST_FORMAT_TOKENS = 32;

/** At least as many tokens as the provider can count for these messages. */
export function promptTokensAtMost(messages: readonly ChatMessage[]): number {
  let tokens = REQUEST_FORMAT_TOKENS;
  // Counted, not encoded: a prompt of thousands of calls is not copied for this.
  for (const m of messages) tokens += Buffer.byteLength(m.role, "utf8") + Buffer.byteLength(m.content, "utf8") + MESSAGE_FORMAT_TOKENS;
  return tokens;
}

export interface RequestWorstCase {
  readonly prompt_tokens_at_most: number;
  /** The completion's limit; null: the request sets none (its worst case has no bound). */
  readonly max_tokens: number | null;
  /** Prompt at most + max_tokens; Infinity without a max_tokens. */
  readonly tokens: number;
}

export function requestWorstCase(request: ChatRequest): RequestWorstCase {
  const prompt = promptTokensAtMost(request.messages);
  const max = typeof request.maxTokens === "number" && request.maxTokens >= 0 ? request.maxTokens : null;
  return { prompt_tokens_at_most: prompt, max_tokens: max, tokens: max === null ? Number.POSITIVE_INFINITY : prompt + max };
}
