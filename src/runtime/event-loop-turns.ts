/**
 * Pacing for work that never waits on I/O: an effect to run before each step that lets the event
 * loop turn when it has not for `maxStallMs`.
 */
import * as Effect from "effect/Effect";

/**
 * Jobs that never wait on I/O would run the whole matrix in one turn of the event loop, so
 * signals (Ctrl-C), timers and the console's live line would wait for the end. This lets the
 * loop turn before a job starts when it has not turned for a while; jobs that wait on I/O (every
 * real one) turn it themselves, and then nothing is added to their order.
 */
export function eventLoopTurns(maxStallMs = 50): Effect.Effect<void> {
  let turned = true;
  let since = performance.now();
  const watch = () => {
    turned = false;
    since = performance.now();
    setImmediate(() => {
      turned = true;
    });
  };
  const turn = Effect.async<void>((resume) => {
    const handle = setImmediate(() => resume(Effect.void));
    return Effect.sync(() => clearImmediate(handle));
  });
  return Effect.suspend(() => {
    if (turned) {
      watch();
      return Effect.void;
    }
    if (performance.now() - since < maxStallMs) return Effect.void;
    return Effect.zipRight(turn, Effect.sync(watch));
  });
}
