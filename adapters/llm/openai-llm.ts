/**
 * An OpenAI-compatible chat-completions server through the `openai` client (OpenAI, OpenRouter,
 * vLLM, a local proxy...). The API key is read from the environment variable the config names
 * (`llm.api_key_env`, default OPENAI_API_KEY) and never stored anywhere else.
 */
import OpenAI from "openai";
import type { ChatRequest, ChatResponse, Llm } from "../../src/llm/llm.js";
import { estimateTokens } from "../../src/llm/llm.js";

export interface OpenAiLlmOptions {
  readonly model: string;
  readonly apiKey: string;
  readonly baseURL?: string;
  /** Retries on rate limits, timeouts and 5xx (the client's exponential backoff). */
  readonly maxRetries?: number;
  readonly timeoutMs?: number;
}

/** Newer OpenAI reasoning models take `max_completion_tokens` instead of `max_tokens` (spec §8.2). */
export function usesMaxCompletionTokens(model: string): boolean {
  const name = model.replace(/^openai\//, "").toLowerCase();
  return ["gpt-5", "o1", "o3", "o4"].some((prefix) => name.startsWith(prefix));
}

export function createOpenAiLlm(options: OpenAiLlmOptions): Llm {
  const client = new OpenAI({
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    maxRetries: options.maxRetries ?? 5,
    timeout: options.timeoutMs ?? 600_000,
  });
  const model = options.model.replace(/^openrouter\//, "");
  return {
    model,
    async complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
      const limit = request.maxTokens === undefined ? {} : usesMaxCompletionTokens(model) ? { max_completion_tokens: request.maxTokens } : { max_tokens: request.maxTokens };
      const body = {
        model,
        messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
        ...limit,
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      };
      const send = (withFormat: boolean) =>
        client.chat.completions.create(
          { ...body, ...(withFormat && request.responseFormat ? { response_format: { type: request.responseFormat } } : {}) },
          signal ? { signal } : {},
        );
      let completion;
      try {
        completion = await send(true);
      } catch (error) {
        // Like OptoPrime: a server that rejects response_format gets the request once more without it.
        if (!request.responseFormat || signal?.aborted || !(error instanceof OpenAI.BadRequestError)) throw error;
        completion = await send(false);
      }
      const content = completion.choices[0]?.message?.content ?? "";
      const usage = completion.usage;
      const prompt_tokens = usage?.prompt_tokens ?? estimateTokens(request.messages.map((m) => m.content).join("\n"));
      const completion_tokens = usage?.completion_tokens ?? estimateTokens(content);
      return {
        content,
        model: completion.model ?? model,
        estimated: usage === undefined,
        usage: { prompt_tokens, completion_tokens, total_tokens: usage?.total_tokens ?? prompt_tokens + completion_tokens },
      };
    },
  };
}
