/**
 * Keeps a run's requests to one model within the provider's limits: at most `maxConcurrency` in
 * flight and, optionally, at most `requestsPerMinute` started in any sliding window. One limiter is
 * shared by every job of the run (parallel jobs add up at the provider). Requests wait their turn,
 * first come first served; they never fail, except when the caller's signal aborts while they wait.
 */
import { LlmError } from "./llm-error.js";

export interface RequestLimiterOptions {
  /** Requests in flight at once; unlimited when absent. */
  readonly maxConcurrency?: number;
  /** Requests started in any window of `windowMs`; unlimited when absent. */
  readonly requestsPerMinute?: number;
  /** The rate window: a minute, shorter only in tests. */
  readonly windowMs?: number;
}

/** Gives a slot back; calling it again does nothing. */
export type ReleaseSlot = () => void;

export interface RequestLimiter {
  /**
   * Waits for a slot (one HTTP request) and resolves to the function that gives it back. Rejects
   * with `LlmError("aborted")` when `signal` aborts first; the request then takes no slot.
   */
  acquire(signal?: AbortSignal): Promise<ReleaseSlot>;
  /** Requests holding a slot now. */
  readonly inFlight: number;
  /** Requests waiting for one. */
  readonly waiting: number;
}

interface Waiter {
  grant(release: ReleaseSlot): void;
}

function positiveInteger(name: string, value: number | undefined): number {
  if (value === undefined) return Number.POSITIVE_INFINITY;
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`request limiter: ${name} must be a positive integer, got ${value}`);
  return value;
}

export function createRequestLimiter(options: RequestLimiterOptions = {}): RequestLimiter {
  const maxConcurrency = positiveInteger("maxConcurrency", options.maxConcurrency);
  const perWindow = positiveInteger("requestsPerMinute", options.requestsPerMinute);
  const windowMs = options.windowMs ?? 60_000;
  if (!(windowMs > 0)) throw new RangeError(`request limiter: windowMs must be positive, got ${windowMs}`);

  const queue: Waiter[] = [];
  /** When the requests of the current window started, oldest first (only kept under a rate limit). */
  const starts: number[] = [];
  let inFlight = 0;
  /** Set while the queue waits for the oldest start to leave the window. */
  let windowTimer: NodeJS.Timeout | undefined;

  const releaser = (): ReleaseSlot => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      inFlight -= 1;
      pump();
    };
  };

  function pump(): void {
    while (queue.length > 0 && inFlight < maxConcurrency) {
      if (perWindow !== Number.POSITIVE_INFINITY) {
        const now = performance.now();
        while (starts.length > 0 && now - starts[0]! >= windowMs) starts.shift();
        if (starts.length >= perWindow) {
          windowTimer ??= setTimeout(() => {
            windowTimer = undefined;
            pump();
          }, Math.ceil(starts[0]! + windowMs - now));
          return;
        }
        starts.push(now);
      }
      inFlight += 1;
      queue.shift()!.grant(releaser());
    }
    // Nobody left to wake: do not keep the process alive for an empty queue.
    if (queue.length === 0 && windowTimer !== undefined) {
      clearTimeout(windowTimer);
      windowTimer = undefined;
    }
  }

  return {
    get inFlight() {
      return inFlight;
    },
    get waiting() {
      return queue.length;
    },
    acquire(signal?: AbortSignal): Promise<ReleaseSlot> {
      if (signal?.aborted) return Promise.reject(new LlmError("aborted", "aborted while waiting for a request slot"));
      return new Promise<ReleaseSlot>((resolve, reject) => {
        const onAbort = () => {
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
          pump();
          reject(new LlmError("aborted", "aborted while waiting for a request slot"));
        };
        const waiter: Waiter = {
          grant(release) {
            signal?.removeEventListener("abort", onAbort);
            resolve(release);
          },
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        queue.push(waiter);
        pump();
      });
    },
  };
}

/** One limiter per model, created on first use: what `llmFactory` keeps for the length of a run. */
export interface RequestLimiters {
  forModel(model: string): RequestLimiter;
}

export function createRequestLimiters(optionsFor: (model: string) => RequestLimiterOptions = () => ({})): RequestLimiters {
  const byModel = new Map<string, RequestLimiter>();
  return {
    forModel(model) {
      let limiter = byModel.get(model);
      if (limiter === undefined) {
        limiter = createRequestLimiter(optionsFor(model));
        byModel.set(model, limiter);
      }
      return limiter;
    },
  };
}
