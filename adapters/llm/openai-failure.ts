/**
 * What went wrong in one HTTP attempt, as the retry loop needs it (retry or not, how long the server
 * asked us to wait) and as the run records it (an `LlmError` kind and a one-line message that never
 * holds an API key: servers echo keys, masked or not, in their error messages).
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import { LlmError, type LlmErrorKind } from "../../src/llm/llm-error.js";
import { isRetryableStatus, retryAfterMs } from "./retry-delay.js";

export interface AttemptFailure {
  readonly kind: LlmErrorKind;
  readonly httpStatus: number | null;
  /** One line, redacted, without the retry count. */
  readonly message: string;
  readonly retryable: boolean;
  /** The pause the server asked for (429 or 503 with Retry-After). */
  readonly retryAfterMs?: number;
}

/** Longest server text kept in a message: enough for the reason, not a whole HTML error page. */
const MAX_DETAIL = 300;

/** Things shaped like credentials: OpenAI/OpenRouter/Anthropic keys (also masked ones), bearer tokens, key=value pairs. */
const SECRET_SHAPES: readonly [RegExp, string][] = [
  [/\bsk-[A-Za-z0-9_*-]{3,}/g, "[redacted]"],
  [/\bBearer\s+[^\s"',;]+/gi, "Bearer [redacted]"],
  [/\b((?:api[_-]?key|access[_-]?token|token|secret)["']?\s*[:=]\s*["']?)[^\s"',;&]+/gi, "$1[redacted]"],
];

/** One line, at most MAX_DETAIL characters, without `apiKey` or anything shaped like a key. */
export function redactSecrets(text: string, apiKey: string): string {
  // A very short key (tests use "k") would blank out ordinary letters; real keys are long.
  let clean = apiKey.length >= 8 ? text.split(apiKey).join("[redacted]") : text;
  for (const [shape, replacement] of SECRET_SHAPES) clean = clean.replace(shape, replacement);
  clean = clean.replace(/\s+/g, " ").trim();
  return clean.length > MAX_DETAIL ? `${clean.slice(0, MAX_DETAIL - 1)}…` : clean;
}

/** The base URL for a message, without credentials someone put in it. */
export function displayURL(baseURL: string): string {
  try {
    const url = new URL(baseURL);
    url.username = "";
    url.password = "";
    return url.toString().replace(/\/$/, "");
  } catch {
    return "(invalid base URL)";
  }
}

/** A 400/422 that is really "this model does not exist" (OpenRouter, some proxies, older OpenAI). */
function namesMissingModel(text: string, code: unknown): boolean {
  return (
    code === "model_not_found" ||
    /\bmodel\b[^.]*\b(does not exist|doesn't exist|not found|is not a valid|is invalid|is not available)/i.test(text) ||
    /\b(invalid|unknown|no such|not a valid)\s+model\b/i.test(text)
  );
}

function kindOfStatus(status: number, text: string, code: unknown): LlmErrorKind {
  if (status === 401) return "auth";
  if (status === 403) return "permission";
  if (status === 404) return "model_not_found";
  if (status === 408) return "timeout";
  if (status === 429) return "rate_limited";
  if (status === 409 || status >= 500) return "server";
  if ((status === 400 || status === 422) && namesMissingModel(text, code)) return "model_not_found";
  return "bad_request";
}

const NETWORK_PHRASES: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EPIPE: "connection closed",
  UND_ERR_SOCKET: "connection closed",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host not found",
  ETIMEDOUT: "connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
};

/** The system error code somewhere down the cause chain (fetch wraps it in "fetch failed"). */
function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Object; depth += 1) {
    const { code, errors, cause } = current as { code?: unknown; errors?: unknown; cause?: unknown };
    if (typeof code === "string" && code !== "") return code;
    // Happy eyeballs tries several addresses and reports an AggregateError.
    if (Array.isArray(errors) && errors.length > 0) current = errors[0];
    else current = cause;
  }
  return undefined;
}

function networkFailure(error: unknown, baseURL: string, apiKey: string): AttemptFailure {
  const code = networkCode(error);
  const url = displayURL(baseURL);
  const phrase = code === undefined ? undefined : NETWORK_PHRASES[code];
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
  const message = phrase !== undefined ? `${phrase} to ${url} (${code})` : `connection failed to ${url}${code ? ` (${code})` : ""}: ${redactSecrets(cause, apiKey)}`;
  return { kind: "network", httpStatus: null, message, retryable: true };
}

export function timeoutFailure(timeoutMs: number): AttemptFailure {
  const after = timeoutMs >= 1000 ? `${Number((timeoutMs / 1000).toFixed(1))} s` : `${timeoutMs} ms`;
  return { kind: "timeout", httpStatus: null, message: `timeout after ${after}`, retryable: true };
}

export function malformedFailure(detail: string, apiKey: string): AttemptFailure {
  return { kind: "malformed", httpStatus: 200, message: `malformed reply: ${redactSecrets(detail, apiKey)}`, retryable: true };
}

/** What the `openai` client threw (or fetch under it), for an attempt that was neither aborted nor timed out by us. */
export function failureOfError(error: unknown, baseURL: string, apiKey: string, timeoutMs: number): AttemptFailure {
  if (error instanceof APIConnectionTimeoutError) return timeoutFailure(timeoutMs);
  if (error instanceof APIConnectionError) return networkFailure(error, baseURL, apiKey);
  if (error instanceof APIError && typeof error.status === "number") {
    const status = error.status;
    const body = error.error as { message?: unknown } | undefined;
    const text = typeof body?.message === "string" ? body.message : error.message.replace(/^\d{3}\s*/, "");
    const message = redactSecrets(`${status} ${text}`, apiKey);
    const pause = status === 429 || status === 503 ? retryAfterMs(error.headers) : undefined;
    return {
      kind: kindOfStatus(status, text, error.code),
      httpStatus: status,
      message,
      retryable: isRetryableStatus(status),
      ...(pause !== undefined ? { retryAfterMs: pause } : {}),
    };
  }
  // A 200 whose body claims JSON but is not (response.json() threw).
  if (error instanceof SyntaxError) return malformedFailure("body is not JSON", apiKey);
  // Anything else came from the connection (a body cut off mid-way: undici's "terminated").
  return networkFailure(error, baseURL, apiKey);
}

/** The error the caller gets once we stop trying. */
export function toLlmError(failure: AttemptFailure, retries: number): LlmError {
  const suffix = retries === 0 ? "" : ` (${retries} ${retries === 1 ? "retry" : "retries"})`;
  return new LlmError(failure.kind, `${failure.message}${suffix}`, failure.httpStatus, retries);
}
