/**
 * Parallel work inside a trainer (rollouts, proposals) as Effect fibers with a bound
 * (`num_threads`). Results come back in input order, whatever order the work completes in.
 */
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";

export async function mapBounded<T, R>(items: readonly T[], work: (item: T, index: number) => Promise<R>, concurrency: number, signal?: AbortSignal): Promise<R[]> {
  const program = Effect.forEach(items, (item, index) => Effect.tryPromise({ try: () => work(item, index), catch: (error) => error }), {
    concurrency: Math.max(1, concurrency),
  });
  const exit = await Effect.runPromiseExit(program, signal ? { signal } : undefined);
  if (Exit.isSuccess(exit)) return exit.value;
  signal?.throwIfAborted();
  throw Cause.squash(exit.cause);
}
