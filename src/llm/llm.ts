/**
 * The LLM port: chat completion with usage. Implementations (an OpenAI-compatible HTTP client,
 * the stub) are adapters; metering wraps any of them so every call becomes an event.
 */
import type { JsonValue } from "../domain/json-value.js";
import type { ParameterKind } from "../domain/parameter.js";

export interface ChatMessage {
  readonly role: "system" | "user" | "assistant";
  readonly content: string;
}

/** A variable the caller asks the LLM to change, as the stub LLM needs to know it. */
export interface VariableIntent {
  readonly name: string;
  readonly kind: ParameterKind;
  readonly value: JsonValue;
  /** Alternative values a task offers for stub runs (text and code parameters). */
  readonly candidates?: readonly JsonValue[];
}

/**
 * What a request is for, in structured form. Real LLMs read the prompt; the stub LLM, which
 * cannot, answers from this. Never sent over the network.
 */
export type LlmIntent =
  | { readonly kind: "propose"; readonly format: "xml" | "json"; readonly variables: readonly VariableIntent[] }
  /** TextGrad's update: one variable's new value inside <IMPROVED_VARIABLE> tags. */
  | { readonly kind: "improve"; readonly variable: VariableIntent }
  | { readonly kind: "text" };

export interface ChatRequest {
  readonly messages: readonly ChatMessage[];
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly responseFormat?: "json_object";
  readonly intent?: LlmIntent;
}

export interface LlmUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
}

export interface ChatResponse {
  readonly content: string;
  readonly usage: LlmUsage;
  readonly model: string;
  /** True when usage is an estimate (the stub), not counted by a provider. */
  readonly estimated: boolean;
}

export interface Llm {
  readonly model: string;
  complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse>;
}

/** Who made a call, for token accounting by role. */
export type LlmRole = "optimizer" | "agent" | "guide" | "summarizer";

/** A rough token count (4 characters a token), for LLMs that report none. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
