/**
 * The LLM port: chat completion with usage. Implementations (an OpenAI-compatible HTTP client,
 * the stub) are adapters; metering wraps any of them so every call becomes an event.
 */
export interface ChatMessage {
  readonly role: "system" | "user" | "assistant";
  readonly content: string;
}

export interface ChatRequest {
  readonly messages: readonly ChatMessage[];
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly responseFormat?: "json_object";
}

export interface LlmUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  /** Prompt tokens served from the provider's cache (part of prompt_tokens); 0 when not reported. */
  readonly cached_tokens?: number;
}

export interface ChatResponse {
  readonly content: string;
  readonly usage: LlmUsage;
  readonly model: string;
  /** True when usage is an estimate (the stub), not counted by a provider. */
  readonly estimated: boolean;
  /** Retries the adapter made before this reply (429, 5xx, network errors, timeouts). */
  readonly retries?: number;
}

export interface Llm {
  readonly model: string;
  /**
   * One chat completion. Rejects with an `LlmError` (llm-error.ts) saying why there is no reply;
   * an aborted `signal` rejects promptly with kind `aborted`.
   */
  complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse>;
}

/** Who made a call, for token accounting by role. */
export type LlmRole = "optimizer" | "agent" | "guide" | "judge" | "summarizer" | "embedding";

/** One text to embed (an OpenAI-compatible `/embeddings` request with a single input). */
export interface EmbeddingRequest {
  readonly input: string;
}

export interface EmbeddingResponse {
  readonly embedding: readonly number[];
  /** Embeddings bill prompt tokens only: completion_tokens is 0. */
  readonly usage: LlmUsage;
  readonly model: string;
  /** True when usage is an estimate (the stub), not counted by a provider. */
  readonly estimated: boolean;
  readonly retries?: number;
}

/** The embeddings port: implementations are adapters (the `openai` client, the stub); JobCalls records every call. */
export interface Embedder {
  readonly model: string;
  /** Rejects with an `LlmError` saying why there is no vector; an aborted `signal` rejects promptly with kind `aborted`. */
  embed(request: EmbeddingRequest, signal?: AbortSignal): Promise<EmbeddingResponse>;
}

/** A rough token count (4 characters a token), for LLMs that report none. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
