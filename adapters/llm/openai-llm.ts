/**
 * An OpenAI-compatible chat-completions server through the `openai` client (OpenAI, OpenRouter,
 * vLLM, a local proxy...). The API key is read from the environment variable the config names
 * (`llm.api_key_env`, default OPENAI_API_KEY) and never stored anywhere else.
 *
 * The client's own retries are off: this adapter retries itself so that every retry is counted
 * (the reply's and the error's `retries`), follows our rules (which failures, backoff with full
 * jitter, the server's Retry-After), waits for the run's request limiter before every HTTP request,
 * and turns every failure into an `LlmError`.
 */
import OpenAI from "openai";
import type { ChatCompletion } from "openai/resources/chat/completions";
import type { ChatRequest, ChatResponse, Llm, LlmUsage } from "../../src/llm/llm.js";
import { estimateTokens } from "../../src/llm/llm.js";
import { LlmError } from "../../src/llm/llm-error.js";
import type { RequestLimiter } from "../../src/llm/request-limiter.js";
import { linkAbort } from "./abortable.js";
import { attemptRequest } from "./openai-attempt.js";
import { redactSecrets, toLlmError, type AttemptFailure } from "./openai-failure.js";
import { pausedBeforeRetry } from "./retry-delay.js";

export interface OpenAiLlmOptions {
  readonly model: string;
  readonly apiKey: string;
  readonly baseURL?: string;
  /** Limit for each HTTP attempt, reply body included (default 120 000 ms). */
  readonly timeoutMs?: number;
  /** Retries after 408, 409, 429, 5xx, network errors, timeouts and malformed replies (default 5). */
  readonly maxRetries?: number;
  /** Backoff before retry n (from 0) is uniform in [0, min(backoffMaxMs, backoffBaseMs * 2^n)). */
  readonly backoffBaseMs?: number;
  readonly backoffMaxMs?: number;
  /** Shared by every job of the run that uses this model; none = no limit. */
  readonly limiter?: RequestLimiter;
}

export const OPENAI_LLM_DEFAULTS = { timeoutMs: 120_000, maxRetries: 5, backoffBaseMs: 500, backoffMaxMs: 30_000 } as const;

/** Newer OpenAI reasoning models take `max_completion_tokens` instead of `max_tokens` (spec §8.2). */
export function usesMaxCompletionTokens(model: string): boolean {
  const name = model.replace(/^openai\//, "").toLowerCase();
  return ["gpt-5", "o1", "o3", "o4"].some((prefix) => name.startsWith(prefix));
}

function nonNegativeInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`openai llm: ${name} must be a non-negative integer, got ${value}`);
  return value;
}

/** The provider's token counts, or an estimate (flagged) where it sent none. */
function usageOf(completion: ChatCompletion, request: ChatRequest, content: string): { usage: LlmUsage; estimated: boolean } {
  const reported = completion.usage as Partial<ChatCompletion["usage"]> | undefined | null;
  const counted = typeof reported?.prompt_tokens === "number" && typeof reported.completion_tokens === "number";
  const prompt_tokens = counted ? reported!.prompt_tokens! : estimateTokens(request.messages.map((m) => m.content).join("\n"));
  const completion_tokens = counted ? reported!.completion_tokens! : estimateTokens(content);
  const total_tokens = counted && typeof reported!.total_tokens === "number" ? reported!.total_tokens : prompt_tokens + completion_tokens;
  const cached = reported?.prompt_tokens_details?.cached_tokens;
  return {
    estimated: !counted,
    usage: { prompt_tokens, completion_tokens, total_tokens, ...(typeof cached === "number" ? { cached_tokens: cached } : {}) },
  };
}

/** Why a 200 is not a chat completion, or undefined when it is one. */
function malformation(completion: unknown): string | undefined {
  if (typeof completion !== "object" || completion === null) return "body is not JSON";
  const { choices, error } = completion as { choices?: unknown; error?: { message?: unknown } };
  if (Array.isArray(choices) && choices.length > 0) return undefined;
  // OpenRouter sends some upstream failures as a 200 with an error object.
  const said = typeof error?.message === "string" ? ` (${error.message})` : "";
  return `no choices${said}`;
}

export function createOpenAiLlm(options: OpenAiLlmOptions): Llm {
  const timeoutMs = options.timeoutMs ?? OPENAI_LLM_DEFAULTS.timeoutMs;
  const maxRetries = nonNegativeInteger("maxRetries", options.maxRetries ?? OPENAI_LLM_DEFAULTS.maxRetries);
  const backoff = { backoffBaseMs: options.backoffBaseMs ?? OPENAI_LLM_DEFAULTS.backoffBaseMs, backoffMaxMs: options.backoffMaxMs ?? OPENAI_LLM_DEFAULTS.backoffMaxMs };
  if (!(timeoutMs > 0)) throw new RangeError(`openai llm: timeoutMs must be positive, got ${timeoutMs}`);
  const client = new OpenAI({
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    maxRetries: 0,
    // Our own timer (below) also covers reading the body; the client's only covers the headers.
    timeout: Math.ceil(timeoutMs),
  });
  const model = options.model.replace(/^openrouter\//, "");
  /** Set once a server refused response_format and took the request without it: later calls skip it. */
  let formatRefused = false;

  /** One HTTP request under the limiter and the per-attempt timer; a completion or why there is none. */
  const attempt = (body: Record<string, unknown>, call: AbortSignal): Promise<ChatCompletion | AttemptFailure | "aborted"> =>
    attemptRequest(
      { limiter: options.limiter, timeoutMs, baseURL: client.baseURL, apiKey: options.apiKey },
      call,
      (signal) => client.chat.completions.create(body as never, { signal }) as unknown as Promise<ChatCompletion>,
      malformation,
    );

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
      let withFormat = request.responseFormat !== undefined && !formatRefused;
      let retries = 0;
      // One listener on the caller's (long-lived) signal for the whole call, removed in finally.
      const call = linkAbort(signal);
      const aborted = () => {
        const reason: unknown = signal?.reason;
        const why = typeof reason === "string" ? reason : reason instanceof Error && reason.name !== "AbortError" ? reason.message : "";
        const suffix = retries === 0 ? "" : ` (${retries} ${retries === 1 ? "retry" : "retries"})`;
        return new LlmError("aborted", `aborted${why ? `: ${redactSecrets(why, options.apiKey)}` : ""}${suffix}`, null, retries);
      };
      try {
        for (;;) {
          if (call.signal.aborted) throw aborted();
          const outcome = await attempt(withFormat ? { ...body, response_format: { type: request.responseFormat } } : body, call.signal);
          if (outcome === "aborted") throw aborted();
          if (!("kind" in outcome)) {
            if (withFormat === false && request.responseFormat !== undefined) formatRefused = true;
            const content = outcome.choices[0]?.message?.content ?? "";
            return { content, model: outcome.model ?? model, retries, ...usageOf(outcome, request, content) };
          }
          // Like OptoPrime: a server that rejects response_format gets the request once more without
          // it. That resend answers a refusal, not a passing failure, so it is not counted as a retry.
          if (withFormat && outcome.httpStatus === 400 && outcome.kind === "bad_request") {
            withFormat = false;
            continue;
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
