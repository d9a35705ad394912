/**
 * How long to wait before the next try: exponential backoff with full jitter (parallel jobs that
 * failed together do not come back together), unless the server said when to come back.
 */
import { sleep } from "./abortable.js";

export interface BackoffOptions {
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
}

/** Statuses worth another try: request timeout, lock conflict, rate limit, server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Full jitter: uniform in [0, min(max, base * 2^retry)), `retry` counting from 0. */
export function backoffMs(retry: number, options: BackoffOptions, random: () => number = Math.random): number {
  const ceiling = Math.min(options.backoffMaxMs, options.backoffBaseMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/** Waits before retry number `retry`: the pause the server asked for, else the backoff. False when aborted meanwhile. */
export async function pausedBeforeRetry(failure: { readonly retryAfterMs?: number }, retry: number, options: BackoffOptions, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(failure.retryAfterMs ?? backoffMs(retry, options), signal);
    return true;
  } catch {
    return false;
  }
}

/** A server may ask for at most this long a pause; beyond it we would rather try and fail. */
export const RETRY_AFTER_CAP_MS = 60_000;

/**
 * The pause a 429 or 503 asks for: `retry-after-ms` (OpenAI's), else `Retry-After` in seconds or as
 * an HTTP date; capped at `RETRY_AFTER_CAP_MS`. Undefined when there is no usable header.
 */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, now: number = Date.now()): number | undefined {
  if (headers === undefined) return undefined;
  const capped = (ms: number) => Math.min(RETRY_AFTER_CAP_MS, Math.max(0, ms));
  const millis = headers.get("retry-after-ms");
  if (millis !== null && millis.trim() !== "" && Number.isFinite(Number(millis))) return capped(Number(millis));
  const value = headers.get("retry-after")?.trim();
  if (value === undefined || value === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return capped(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : capped(date - now);
}
