/**
 * Embeddings from an OpenAI-compatible `/embeddings` endpoint through the `openai` client, with the
 * chat adapter's rules (openai-llm.ts): our own counted retries with backoff and Retry-After, the
 * run's request limiter before every HTTP request, a per-attempt timer, every failure an `LlmError`.
 */
import OpenAI from "openai";
import type { CreateEmbeddingResponse } from "openai/resources/embeddings";
import type { Embedder, EmbeddingRequest, EmbeddingResponse } from "../../src/llm/llm.js";
import { estimateTokens } from "../../src/llm/llm.js";
import { LlmError } from "../../src/llm/llm-error.js";
import { linkAbort } from "./abortable.js";
import { attemptRequest } from "./openai-attempt.js";
import { toLlmError, type AttemptFailure } from "./openai-failure.js";
import { OPENAI_LLM_DEFAULTS, type OpenAiLlmOptions } from "./openai-llm.js";
import { pausedBeforeRetry } from "./retry-delay.js";

/** Why a 200 is not one embedding, or undefined when it is one. */
function malformation(reply: unknown): string | undefined {
  if (typeof reply !== "object" || reply === null) return "body is not JSON";
  const data = (reply as { data?: unknown }).data;
  if (!Array.isArray(data) || data.length === 0) return "no data";
  const vector = (data[0] as { embedding?: unknown }).embedding;
  if (!Array.isArray(vector) || vector.length === 0 || !vector.every((x) => typeof x === "number" && Number.isFinite(x))) return "data[0].embedding is not a list of numbers";
  return undefined;
}

export function createOpenAiEmbedder(options: OpenAiLlmOptions): Embedder {
  const timeoutMs = options.timeoutMs ?? OPENAI_LLM_DEFAULTS.timeoutMs;
  const maxRetries = options.maxRetries ?? OPENAI_LLM_DEFAULTS.maxRetries;
  const backoff = { backoffBaseMs: options.backoffBaseMs ?? OPENAI_LLM_DEFAULTS.backoffBaseMs, backoffMaxMs: options.backoffMaxMs ?? OPENAI_LLM_DEFAULTS.backoffMaxMs };
  const client = new OpenAI({ apiKey: options.apiKey, ...(options.baseURL ? { baseURL: options.baseURL } : {}), maxRetries: 0, timeout: Math.ceil(timeoutMs) });
  const model = options.model.replace(/^openrouter\//, "");

  const attempt = (input: string, call: AbortSignal): Promise<CreateEmbeddingResponse | AttemptFailure | "aborted"> =>
    attemptRequest(
      { limiter: options.limiter, timeoutMs, baseURL: client.baseURL, apiKey: options.apiKey },
      call,
      // encoding_format float: the client would otherwise ask for base64 and decode it itself.
      (signal) => client.embeddings.create({ model, input, encoding_format: "float" }, { signal }),
      malformation,
    );

  return {
    model,
    async embed(request: EmbeddingRequest, signal?: AbortSignal): Promise<EmbeddingResponse> {
      let retries = 0;
      const call = linkAbort(signal);
      const aborted = () => new LlmError("aborted", retries === 0 ? "aborted" : `aborted (${retries} ${retries === 1 ? "retry" : "retries"})`, null, retries);
      try {
        for (;;) {
          if (call.signal.aborted) throw aborted();
          const outcome = await attempt(request.input, call.signal);
          if (outcome === "aborted") throw aborted();
          if (!("kind" in outcome)) {
            const counted = typeof outcome.usage?.prompt_tokens === "number";
            const prompt_tokens = counted ? outcome.usage.prompt_tokens : estimateTokens(request.input);
            const total_tokens = counted && typeof outcome.usage.total_tokens === "number" ? outcome.usage.total_tokens : prompt_tokens;
            return { embedding: outcome.data[0]!.embedding, model: outcome.model ?? model, estimated: !counted, retries, usage: { prompt_tokens, completion_tokens: 0, total_tokens } };
          }
          if (!outcome.retryable || retries >= maxRetries) throw toLlmError(outcome, retries);
          if (!(await pausedBeforeRetry(outcome, retries, backoff, call.signal))) throw aborted();
          retries += 1;
        }
      } finally {
        call.dispose();
      }
    },
  };
}
