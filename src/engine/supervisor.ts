/**
 * Runs the jobs of an invocation as fibers, at most `maxWorkers` at a time. Fail-fast stops
 * starting new jobs after the first failure (running ones finish), and so does a spent run budget.
 * Interrupting the supervisor interrupts every running job (each records `cancelled`) and starts
 * no more. A job whose events the log refuses (`JobNotRecorded`) stops the whole invocation:
 * the other jobs are interrupted and the supervisor fails with that error.
 */
import * as Effect from "effect/Effect";
import type { RecordError } from "./job-recorder.js";
import { runJob, type JobAttempt, type JobRunOptions } from "./job-runner.js";

export interface SupervisorOptions extends JobRunOptions {
  readonly jobs: readonly JobAttempt[];
  readonly maxWorkers: number;
  readonly failFast: boolean;
  /** False once no new job may start (the run's budget is spent). */
  readonly mayStart?: () => boolean;
}

/**
 * Jobs that never wait on I/O would run the whole matrix in one turn of the event loop, so
 * signals (Ctrl-C), timers and the console's live line would wait for the end. This lets the
 * loop turn before a job starts when it has not turned for a while; jobs that wait on I/O (every
 * real one) turn it themselves, and then nothing is added to their order.
 */
function eventLoopTurns(maxStallMs = 50) {
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

export function superviseJobs(options: SupervisorOptions): Effect.Effect<void, RecordError, Effect.Effect.Context<ReturnType<typeof runJob>>> {
  return Effect.suspend(() => {
    const letEventLoopTurn = eventLoopTurns();
    let stopped = false;
    const one = (job: JobAttempt) =>
      Effect.zipRight(
        letEventLoopTurn,
        Effect.suspend(() => {
          if (stopped || options.mayStart?.() === false) return Effect.void;
          return Effect.map(runJob(job, options), (status) => {
            if (options.failFast && (status === "failed" || status === "timeout")) stopped = true;
          });
        }),
      );
    // A fiber per job, at most `maxWorkers` at once. The first job that cannot be recorded fails
    // the whole: the running ones are interrupted (each records its cancellation) and no more start.
    return Effect.forEach(options.jobs, one, { concurrency: Math.max(1, options.maxWorkers), discard: true });
  });
}
