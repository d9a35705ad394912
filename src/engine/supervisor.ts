/**
 * Runs the jobs of an invocation as fibers, at most `maxWorkers` at a time. Fail-fast stops
 * starting new jobs after the first failure (running ones finish). Interrupting the supervisor
 * interrupts every running job (each records `cancelled`) and starts no more.
 */
import * as Effect from "effect/Effect";
import type { JobSpec } from "../config/matrix.js";
import { runJob, type JobRunContext } from "./job-runner.js";

export interface PlannedJob {
  readonly spec: JobSpec;
  readonly attempt: number;
}

export interface SupervisorOptions {
  readonly jobs: readonly PlannedJob[];
  readonly maxWorkers: number;
  readonly failFast: boolean;
  readonly context: JobRunContext;
  /** Whether a job's attempt ended failed (or timed out), for fail-fast. */
  readonly failedJob: (jobId: string) => boolean;
}

export function superviseJobs(options: SupervisorOptions): Effect.Effect<void> {
  return Effect.suspend(() => {
    let stopped = false;
    const one = (job: PlannedJob) =>
      Effect.suspend(() => {
        if (stopped) return Effect.void;
        return runJob(job.spec, job.attempt, options.context).pipe(
          Effect.tap(() =>
            Effect.sync(() => {
              if (options.failFast && options.failedJob(job.spec.job_id)) stopped = true;
            }),
          ),
        );
      });
    return Effect.forEach(options.jobs, one, { concurrency: Math.max(1, options.maxWorkers), discard: true });
  });
}
