/**
 * Abort plumbing for one LLM call. A job's signal lives for the whole job and sees hundreds of
 * calls, so nothing may stay registered on it after a call: every listener added here is removed
 * in a `finally` (AbortSignal.any is not used: on Node 20 it keeps its sources' listeners alive).
 */

export interface LinkedAbort {
  /** Aborts when the parent does, or when `abort` is called. */
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
  /** Removes the listener from the parent; call in `finally`. */
  dispose(): void;
}

/** A controller of its own that follows `parent`, so the parent gets one listener for the call's length. */
export function linkAbort(parent: AbortSignal | undefined): LinkedAbort {
  const controller = new AbortController();
  const follow = () => controller.abort(parent?.reason);
  if (parent?.aborted) follow();
  else parent?.addEventListener("abort", follow, { once: true });
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    dispose: () => parent?.removeEventListener("abort", follow),
  };
}

/** Waits `ms`; rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Settles like `promise`, or rejects with the signal's reason as soon as it aborts, whichever is
 * first: the caller is answered at once even if the work behind `promise` takes a while to stop.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => undefined); // its late rejection is expected and not an unhandled one
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
