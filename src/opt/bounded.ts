/**
 * Parallel work inside a trainer (rollouts, proposals) with a bound (`num_threads`). Results come
 * back in input order, whatever order the work completes in. The first error (or the signal's
 * abort) rejects at once and starts nothing more; work already started is left to end on its own
 * (it has the trainer's signal). Plain promises: an Effect runtime per call was a measurable share
 * of a trivial job's time (docs/performance.md, ledger).
 */
export function mapBounded<T, R>(items: readonly T[], work: (item: T, index: number) => Promise<R>, concurrency: number, signal?: AbortSignal): Promise<R[]> {
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  if (items.length === 0) return Promise.resolve([]);
  return new Promise<R[]>((resolve, reject) => {
    const results = new Array<R>(items.length);
    let next = 0;
    let pending = items.length;
    let ended = false;
    const stop = (error: unknown) => {
      if (ended) return;
      ended = true;
      signal?.removeEventListener("abort", onAbort);
      reject(error as Error);
    };
    const onAbort = () => stop(signal!.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const startOne = (): void => {
      if (ended || next >= items.length) return;
      const index = next++;
      let started: Promise<R>;
      try {
        started = work(items[index]!, index);
      } catch (error) {
        return stop(error);
      }
      started.then(
        (value) => {
          if (ended) return;
          results[index] = value;
          pending -= 1;
          if (pending > 0) return startOne();
          ended = true;
          signal?.removeEventListener("abort", onAbort);
          resolve(results);
        },
        (error: unknown) => stop(error),
      );
    };
    for (let i = 0; i < Math.max(1, concurrency) && i < items.length; i++) startOne();
  });
}
