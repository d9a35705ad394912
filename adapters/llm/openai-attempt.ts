/**
 * One HTTP request to an OpenAI-compatible server, as the chat and embeddings clients make it:
 * under the model's request limiter and a per-attempt timer of our own (the client's timeout only
 * covers the headers), its reply checked for shape; the reply, or why there is none.
 */
import type { RequestLimiter } from "../../src/llm/request-limiter.js";
import { linkAbort, untilAborted } from "./abortable.js";
import { failureOfError, malformedFailure, timeoutFailure, type AttemptFailure } from "./openai-failure.js";

export interface AttemptSettings {
  readonly limiter?: RequestLimiter | undefined;
  readonly timeoutMs: number;
  /** For the failure's text (never the key itself). */
  readonly baseURL: string;
  readonly apiKey: string;
}

export async function attemptRequest<T>(
  settings: AttemptSettings,
  call: AbortSignal,
  send: (signal: AbortSignal) => Promise<T>,
  malformation: (reply: T) => string | undefined,
): Promise<T | AttemptFailure | "aborted"> {
  let release: (() => void) | undefined;
  try {
    release = await settings.limiter?.acquire(call);
  } catch {
    return "aborted";
  }
  const request = linkAbort(call);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    request.abort();
  }, settings.timeoutMs);
  try {
    const reply = await untilAborted(send(request.signal), request.signal);
    const wrong = malformation(reply);
    return wrong === undefined ? reply : malformedFailure(wrong, settings.apiKey);
  } catch (error) {
    if (call.aborted) return "aborted";
    if (timedOut) return timeoutFailure(settings.timeoutMs);
    return failureOfError(error, settings.baseURL, settings.apiKey, settings.timeoutMs);
  } finally {
    clearTimeout(timer);
    request.dispose();
    release?.();
  }
}
