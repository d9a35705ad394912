/**
 * Which jobs an invocation runs, from the run plan and what the log says each job did (spec
 * §5.12). Pure: the same plan and state always give the same invocation.
 */
import type { ResumeMode } from "../config/run-config.js";
import type { EventBody, FinishedStatus } from "../events/event-schema.js";
import type { RunState } from "../events/run-state.js";
import type { JobAttempt } from "./job-runner.js";
import type { RunPlan } from "./run-plan.js";

export interface InvocationPlan {
  /** 1 for a new run, +1 for each resume. */
  readonly invocation: number;
  readonly jobs: readonly JobAttempt[];
  /** Matrix jobs this invocation will not run, and why. */
  readonly notRun: Readonly<Record<string, string>>;
  /** Jobs an earlier invocation finished that are kept. */
  readonly alreadyDone: number;
}

/**
 * Statuses a resume mode keeps; every other matrix job runs again. A job that spent its budget,
 * or searched and found no valid candidate, is a result, like ok: re-running it would spend the
 * same again; `failed` retries the latter.
 */
export function needsRun(status: FinishedStatus | null, mode: ResumeMode, resuming: boolean): boolean {
  if (!resuming || mode === "none") return true;
  if (mode === "auto") return status === null || !["ok", "skipped", "budget_exhausted", "no_valid_candidate"].includes(status);
  return status !== null && ["failed", "timeout", "cancelled", "no_valid_candidate"].includes(status);
}

/**
 * @param historyOf a job's stream as the log holds it (every attempt): read only for the jobs
 *   that run again, since the run state keeps no events.
 */
export function planInvocation(
  plan: Pick<RunPlan, "jobs" | "resumeMode" | "resuming">,
  state: RunState,
  historyOf: (jobId: string) => readonly EventBody[],
): InvocationPlan {
  const jobs: JobAttempt[] = [];
  const notRun: Record<string, string> = {};
  for (const spec of plan.jobs) {
    const view = state.jobs.get(spec.job_id);
    const status = state.statusOf(spec.job_id);
    if (needsRun(status, plan.resumeMode, plan.resuming)) {
      jobs.push({ spec, attempt: (view?.attempt ?? 0) + 1, history: view === undefined || view.lastSeq === 0 ? [] : historyOf(spec.job_id) });
    } else if (status === null) notRun[spec.job_id] = "resume_mode_failed_skips_never_run_jobs";
  }
  return { invocation: state.invocations + 1, jobs, notRun, alreadyDone: plan.jobs.length - jobs.length - Object.keys(notRun).length };
}
