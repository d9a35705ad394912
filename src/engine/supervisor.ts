/**
 * Runs the jobs of an invocation as fibers, at most `maxWorkers` at a time, each held in a
 * `FiberMap` keyed by its job id: one job can be cancelled alone (`cancelJob`: it records
 * `cancelled` and the others go on), and closing the map's scope interrupts every job still
 * running (each records `cancelled`) before `supervise` returns.
 *
 * Fail-fast stops starting new jobs after the first failure (running ones finish), and so does a
 * spent run budget. Interrupting `supervise` interrupts every running job and starts no more. A
 * job whose events the log refuses (`JobNotRecorded`) stops the whole invocation: the other jobs
 * are interrupted and `supervise` fails with that error.
 */
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import * as FiberMap from "effect/FiberMap";
import type { FinishedStatus } from "../events/event-schema.js";
import { eventLoopTurns } from "../runtime/event-loop-turns.js";
import type { RecordError } from "./job-recorder.js";
import { runJob, type JobAttempt, type JobRunOptions } from "./job-runner.js";

export interface SupervisorOptions extends JobRunOptions {
  readonly jobs: readonly JobAttempt[];
  readonly maxWorkers: number;
  readonly failFast: boolean;
  /** False once no new job may start (the run's budget is spent). */
  readonly mayStart?: () => boolean;
  /** Runs one attempt (default: here, `runJob`; `--executor bullmq`: on a worker, RemoteExecutor). */
  readonly runAttempt?: (job: JobAttempt, options: JobRunOptions) => Effect.Effect<FinishedStatus, RecordError, JobServicesOf>;
}

type JobServicesOf = Effect.Effect.Context<ReturnType<typeof runJob>>;

/** What `cancelJob` says: the job was running and its cancellation is recorded, or why nothing was done. */
export type CancelOutcome = { readonly cancelled: true } | { readonly cancelled: false; readonly why: "not_running" | "already_cancelling" };

export class Supervisor {
  /** The running jobs' fibers while `supervise` runs (null before and after). */
  private running: FiberMap.FiberMap<string, FinishedStatus, RecordError> | null = null;
  /** Jobs cancelled alone, with the reason their cancellation records. */
  private readonly cancelledAlone = new Map<string, string>();

  /** The jobs cancelled alone so far (not by the run's interruption). */
  cancelledJobs(): ReadonlySet<string> {
    return new Set(this.cancelledAlone.keys());
  }

  /**
   * Cancels one running job: its attempt is aborted (child processes killed) and records
   * `cancelled` with `reason`; resolves once that is committed. Other jobs are not touched.
   */
  cancelJob(jobId: string, reason: string): Effect.Effect<CancelOutcome> {
    const refused = (why: "not_running" | "already_cancelling"): Effect.Effect<CancelOutcome> => Effect.succeed({ cancelled: false, why });
    return Effect.suspend(() => {
      const running = this.running;
      if (this.cancelledAlone.has(jobId)) return refused("already_cancelling");
      if (running === null) return refused("not_running");
      return Effect.flatMap(FiberMap.has(running, jobId), (has): Effect.Effect<CancelOutcome> => {
        if (!has) return refused("not_running");
        this.cancelledAlone.set(jobId, reason);
        return Effect.as(FiberMap.remove(running, jobId), { cancelled: true });
      });
    });
  }

  supervise(options: SupervisorOptions): Effect.Effect<void, RecordError, JobServicesOf> {
    return Effect.scoped(
      Effect.flatMap(FiberMap.make<string, FinishedStatus, RecordError>(), (running) =>
        Effect.suspend(() => {
          this.running = running;
          const letEventLoopTurn = eventLoopTurns();
          const jobOptions: JobRunOptions = { ...options, cancelReason: (jobId) => this.cancelledAlone.get(jobId) };
          const runAttempt = options.runAttempt ?? runJob;
          let stopped = false;
          const settle = (exit: Exit.Exit<FinishedStatus, RecordError>): Effect.Effect<void, RecordError> => {
            if (Exit.isSuccess(exit)) {
              if (options.failFast && (exit.value === "failed" || exit.value === "timeout")) stopped = true;
              return Effect.void;
            }
            // Interrupted alone (cancelJob): its cancellation is recorded and the others go on.
            if (Cause.isInterruptedOnly(exit.cause)) return Effect.void;
            return Effect.failCause(exit.cause);
          };
          const one = (job: JobAttempt) =>
            Effect.zipRight(
              letEventLoopTurn,
              Effect.suspend(() => {
                if (stopped || options.mayStart?.() === false) return Effect.void;
                // The job's fiber lives in the map (so it can be cancelled by id); this one waits on it.
                return FiberMap.run(running, job.spec.job_id, runAttempt(job, jobOptions)).pipe(Effect.flatMap(Fiber.await), Effect.flatMap(settle));
              }),
            );
          // At most `maxWorkers` at once. The first job that cannot be recorded fails the whole: the
          // map's scope closes, interrupting the running ones (each records its cancellation).
          return Effect.forEach(options.jobs, one, { concurrency: Math.max(1, options.maxWorkers), discard: true });
        }).pipe(
          Effect.ensuring(
            Effect.sync(() => {
              this.running = null;
            }),
          ),
        ),
      ),
    );
  }
}

/** The supervisor of one invocation's jobs, for a caller that never cancels a job alone. */
export function superviseJobs(options: SupervisorOptions): Effect.Effect<void, RecordError, JobServicesOf> {
  return new Supervisor().supervise(options);
}
