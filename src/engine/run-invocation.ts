/**
 * One invocation of `run` as an Effect program on one runtime: open the run session (scoped: the
 * writer lock is released however the program ends), record `RunStarted`, supervise the planned
 * jobs, record how the invocation ended (`RunFinished`, or `RunInterrupted` on a signal or when
 * the log stopped taking events) and bring every projection level with the log.
 */
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Duration from "effect/Duration";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import type * as Layer from "effect/Layer";
import * as ManagedRuntime from "effect/ManagedRuntime";
import * as Schedule from "effect/Schedule";
import * as Cause from "effect/Cause";
import { jobIdentityFields } from "../config/matrix.js";
import type { Subscriber } from "../events/event-bus.js";
import type { EventData, FinishedStatus, JobSpecRecord, NewEvent } from "../events/event-schema.js";
import { sanitize, yamlArtifact } from "../events/projections/artifact-format.js";
import type { RunState } from "../events/run-state.js";
import { planInvocation } from "./invocation-plan.js";
import { planDigest } from "./plan-digest.js";
import { JobNotRecorded } from "./job-recorder.js";
import type { JobAttempt, JobRunOptions } from "./job-runner.js";
import { captureEnvironment, captureGit, llmInfo } from "./run-environment.js";
import type { RunPlan } from "./run-plan.js";
import { cancelledAloneReason, removeControlDir, takeJobCancelRequests } from "./job-cancel-requests.js";
import { appendFailure, logReadFailure } from "./log-errors.js";
import { LlmSource, RunLog, type TaskSource, type TrainerSource } from "./run-services.js";
import { RunDirError } from "./run-dir-error.js";
import { ActiveRunSession, runLogOf, runSessionLayer } from "./run-session-layer.js";
import { Supervisor } from "./supervisor.js";
import { RemoteExecutor, type RemoteExecutorSettings } from "./executor/remote-executor.js";

/** How often a running invocation looks for cancel requests (a failed readdir when there is none). */
const CANCEL_REQUEST_POLL_MS = 250;

export interface RunHooks {
  /** Printed before jobs start when an existing run is resumed. */
  readonly onResume?: (runId: string, done: number, total: number) => void;
  /** Problems that are not a job's outcome (a subscriber failing, a late error from the log). */
  readonly report: (text: string) => void;
  /** Subscribers of the caller's (the console), notified after mirrors and projections. */
  readonly subscribers?: (state: RunState) => readonly Subscriber[];
  readonly now?: () => Date;
  /** How often run-level files are refreshed while jobs finish (ms). */
  readonly refreshMs?: number;
  /**
   * The closing summary of a finished run (JSON-safe), recorded with it when every file is level
   * with the log, so that a re-run with nothing to do can say it without folding the log.
   */
  readonly finishedSummary?: (state: RunState) => unknown;
  /** Mode real: the preflight request made before the run started, recorded with RunStarted. */
  readonly preflight?: EventData<"RunStarted">["llm_preflight"];
  /** `--executor bullmq`: jobs run on workers reached through this transport (absent: here). */
  readonly remote?: RemoteExecutorSettings;
}

export interface RunReport {
  readonly plan: RunPlan;
  readonly state: RunState;
  readonly interrupted: boolean;
  readonly ranJobs: number;
  /** Subscribers whose files are behind the log (rebuild with `trace-bench replay`). */
  readonly behind: readonly string[];
}

export interface RunHandle {
  /** The report, or a typed error (lock held, log not writable) as a rejection. */
  readonly done: Promise<RunReport>;
  /** Stop starting jobs and cancel running ones; the run records RunInterrupted and returns. */
  interrupt(signal: string): void;
}

export type RunSources = TaskSource | TrainerSource | LlmSource;

function specRecord(job: RunPlan["jobs"][number]): JobSpecRecord {
  return sanitize({ ...jobIdentityFields(job), resolved_kwargs: job.resolved_kwargs }) as JobSpecRecord;
}

/**
 * What `RunStarted` records that the plan decides, but for the matrix (in the order the event
 * holds them): equal for two invocations of the same plan in the same environment.
 */
export function plannedStart(plan: RunPlan, env: NodeJS.ProcessEnv) {
  return {
    config_hash: plan.configHash,
    config_snapshot: sanitize(plan.snapshot) as Record<string, unknown>,
    config_snapshot_yaml: yamlArtifact(plan.snapshot),
    mode: plan.config.mode,
    max_workers: plan.config.max_workers,
    job_timeout_seconds: plan.timeoutSeconds,
    resume_mode: plan.resumeMode,
    fail_fast: plan.config.fail_fast,
    tags: [...plan.config.tags],
    llm: llmInfo(plan.config, env),
    ...(plan.configName !== null ? { config_name: plan.configName } : {}),
  };
}

function runStarted(plan: RunPlan, planned: ReturnType<typeof plannedStart>, invocation: number, startedAt: Date, preflight: EventData<"RunStarted">["llm_preflight"]): NewEvent {
  return {
    type: "RunStarted",
    data: {
      invocation,
      config_hash: planned.config_hash,
      config_snapshot: planned.config_snapshot,
      config_snapshot_yaml: planned.config_snapshot_yaml,
      matrix: plan.jobs.map(specRecord),
      mode: planned.mode,
      max_workers: planned.max_workers,
      job_timeout_seconds: planned.job_timeout_seconds,
      resume_mode: planned.resume_mode,
      fail_fast: planned.fail_fast,
      tags: planned.tags,
      llm: planned.llm,
      env: captureEnvironment(process.env, startedAt),
      git: captureGit(),
      ...(preflight !== undefined ? { llm_preflight: preflight } : {}),
      ...(planned.config_name !== undefined ? { config_name: planned.config_name } : {}),
    },
  };
}

/** How many matrix jobs ended in each status (`unfinished`: not finished). */
export function matrixStatuses(plan: Pick<RunPlan, "jobs">, state: Pick<RunState, "statusOf">): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const job of plan.jobs) {
    const status = state.statusOf(job.job_id) ?? "unfinished";
    counts[status] = (counts[status] ?? 0) + 1;
  }
  return counts;
}

/** Takes the cancel requests dropped into the run dir (job-cancel-requests.ts) and cancels each job asked for, alone. */
function cancelRequestedJobs(supervisor: Supervisor, plan: RunPlan, report: (text: string) => void): Effect.Effect<void> {
  // Suspended: the folder is read each time the effect runs (it is repeated), not once when built.
  return Effect.suspend(() => Effect.forEach(
    takeJobCancelRequests(plan.runDir, plan.runId),
    (request) => {
      if (!request.ok) return Effect.sync(() => report(`ignored ${request.file}: ${request.problem}`));
      return Effect.map(supervisor.cancelJob(request.jobId, cancelledAloneReason(request.by)), (outcome) => {
        if (outcome.cancelled) report(`job ${request.jobId} cancelled alone, as ${request.by} asked (it is re-run on resume)`);
        else if (outcome.why === "not_running") report(`ignored a request to cancel job ${request.jobId}: it is not running in this invocation`);
      });
    },
    { discard: true },
  ));
}

/** The invocation as an Effect; `stop` completes with a signal name to interrupt it. */
export function runInvocation(plan: RunPlan, hooks: RunHooks, stop: Deferred.Deferred<string>) {
  const now = hooks.now ?? (() => new Date());
  const sessionLayer = runSessionLayer({
    runDir: plan.runDir,
    runId: plan.runId,
    now,
    command: "trace-bench run",
    report: hooks.report,
    ...(hooks.refreshMs !== undefined ? { refreshMs: hooks.refreshMs } : {}),
    ...(hooks.subscribers ? { subscribers: hooks.subscribers } : {}),
  });
  return Effect.gen(function* () {
      const session = yield* ActiveRunSession;
      const state = session.state;
      if (!plan.resuming && state.invocations > 0) {
        // Another `run` started this run directory between our look at it and our taking its lock.
        return yield* Effect.fail(
          new RunDirError({ problem: `${plan.runDir} was started by another trace-bench process while this one was starting; nothing was written: run the same command again to resume it` }),
        );
      }
      const invocation = yield* Effect.try({ try: () => planInvocation(plan, state, (jobId) => session.history(jobId)), catch: (error) => error }).pipe(Effect.catchAll(logReadFailure));
      if (plan.resuming) hooks.onResume?.(plan.runId, invocation.alreadyDone, plan.jobs.length);
      const planned = plannedStart(plan, process.env);
      // Requests left from before this invocation are not for its jobs; the folder goes with the run's end.
      for (const stale of takeJobCancelRequests(plan.runDir, plan.runId)) hooks.report(`discarded ${stale.ok ? `a request to cancel job ${stale.jobId}` : stale.file} left from before this invocation`);
      yield* Effect.addFinalizer(() => Effect.sync(() => removeControlDir(plan.runDir)));
      yield* Effect.try({ try: () => session.appendRunEvents([runStarted(plan, planned, invocation.invocation, now(), hooks.preflight)]), catch: (error) => error }).pipe(Effect.catchAll(appendFailure));

      const calls = (yield* LlmSource).calls;
      const remoteSettings = hooks.remote;
      // Workers' batches are committed through this session: it serves them once RunStarted is in.
      const remote =
        remoteSettings === undefined
          ? null
          : yield* Effect.acquireRelease(
              Effect.promise(() => RemoteExecutor.start(remoteSettings, plan.runId, invocation.invocation, session, calls)),
              (executor) => Effect.sync(() => executor.stop()),
            );
      const jobSupervisor = new Supervisor();
      const supervisor = yield* Effect.fork(
        jobSupervisor.supervise({
          jobs: invocation.jobs,
          maxWorkers: plan.config.max_workers,
          failFast: plan.config.fail_fast,
          invocation: invocation.invocation,
          timeoutSeconds: plan.timeoutSeconds,
          onWarning: hooks.report,
          mayStart: () => calls.runBudgetSpent() === null && calls.stoppedBy === null,
          ...(remote !== null ? { runAttempt: (job: JobAttempt, options: JobRunOptions) => remote.runAttempt(job, options) } : {}),
        }).pipe(Effect.provideService(RunLog, runLogOf(session))),
      );
      // The dashboard's per-job Cancel: a request in the run dir, polled while jobs run.
      const requests = yield* Effect.fork(Effect.repeat(cancelRequestedJobs(jobSupervisor, plan, hooks.report), Schedule.spaced(Duration.millis(CANCEL_REQUEST_POLL_MS))));
      let interruptedBy: string | null = null;
      const stopper = yield* Effect.fork(
        Deferred.await(stop).pipe(
          Effect.flatMap((signal) => {
            interruptedBy = signal;
            return Fiber.interrupt(supervisor);
          }),
        ),
      );
      const exit = yield* Fiber.await(supervisor);
      yield* Fiber.interrupt(stopper); // a signal after the last job is not an interruption
      yield* Fiber.interrupt(requests);
      const cancelledAlone = jobSupervisor.cancelledJobs();

      // The log stopped taking events: record the interruption if it still can, then fail with why.
      const fault = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : undefined;
      const logError = fault !== undefined && fault._tag === "Some" ? fault.value : null;
      if (Exit.isFailure(exit) && logError === null && !Exit.isInterrupted(exit)) return yield* Effect.die(Cause.squash(exit.cause));

      // What each job did in this invocation is read from the log, not from the fibers: one
      // interrupted after its outcome committed, or while recording its cancellation, never reported.
      session.commitPending();
      const ranNow = attemptOutcomes(invocation.jobs, state);
      const notRun: Record<string, string> = { ...invocation.notRun };
      const stopReason =
        logError !== null
          ? "log_error"
          : interruptedBy !== null
            ? "interrupted_before_start"
            : calls.runBudgetSpent() !== null
              ? `run_budget_spent: ${calls.runBudgetSpent()}`
              : "fail_fast_stopped";
      for (const job of invocation.jobs) {
        const outcome = ranNow.get(job.spec.job_id);
        if (outcome === undefined) notRun[job.spec.job_id] = stopReason;
        else if (outcome === null) notRun[job.spec.job_id] = logError !== null ? "log_error" : "unfinished";
      }
      const closing: NewEvent =
        interruptedBy !== null || logError !== null
          ? {
              type: "RunInterrupted",
              data: {
                invocation: invocation.invocation,
                signal: logError !== null ? "log_error" : interruptedBy!,
                running_jobs: [...ranNow].filter(([id, status]) => status === "cancelled" && !cancelledAlone.has(id)).map(([id]) => id),
                not_run: notRun,
              },
            }
          : { type: "RunFinished", data: { invocation: invocation.invocation, counts: countStatuses(plan.jobs.map((j) => state.statusOf(j.job_id))), not_run: notRun } };
      // RunFinished says the reports are complete: it is committed once they are. An interruption is
      // recorded first (a second Ctrl-C may end the process while the reports are written).
      const closed = yield* Effect.either(
        closing.type === "RunFinished"
          ? Effect.tryPromise(() => session.finishWith(closing, hooks.report))
          : Effect.try(() => {
              session.appendRunEvents([closing]);
              return null;
            }),
      );
      if (logError !== null) {
        yield* Effect.promise(() => session.finish(hooks.report));
        return yield* Effect.fail(underlying(logError));
      }
      if (closed._tag === "Left") return yield* Effect.fail(underlying(closed.left.error));
      const behind = closed.right ?? (yield* Effect.promise(() => session.finish(hooks.report)));
      // Everything level with a finished run: a re-run with nothing to do is answered from its record.
      if (closing.type === "RunFinished" && behind.length === 0 && hooks.finishedSummary !== undefined) {
        session.recordFinishedRun({ plan: planDigest(plan, planned), statuses: matrixStatuses(plan, state), summary: hooks.finishedSummary(state) }, hooks.report);
      }
      const ranJobs = [...ranNow.values()].filter((status) => status !== null).length;
      return { plan, state, interrupted: interruptedBy !== null, ranJobs, behind } satisfies RunReport;
    }).pipe(Effect.scoped, Effect.provide(sessionLayer));
}

function countStatuses(statuses: Iterable<FinishedStatus | null>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const status of statuses) if (status !== null) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/**
 * The jobs of this invocation that started their attempt, by the committed log: each with the
 * status that attempt finished with, or null if it never finished (the log stopped taking events).
 */
function attemptOutcomes(jobs: readonly JobAttempt[], state: RunState): Map<string, FinishedStatus | null> {
  const outcomes = new Map<string, FinishedStatus | null>();
  for (const job of jobs) {
    const view = state.jobs.get(job.spec.job_id);
    if (view === undefined || view.attempt < job.attempt) continue;
    outcomes.set(job.spec.job_id, view.finished !== null && view.finished.attempt === job.attempt ? view.finished.status : null);
  }
  return outcomes;
}

/** The log's own error behind a job that could not be recorded (disk full, read-only, ...). */
function underlying(error: unknown): Error {
  if (error instanceof JobNotRecorded) return error.cause;
  return error instanceof Error ? error : new Error(String(error));
}

/** Runs an invocation on a runtime built from `sources`; the handle interrupts it on a signal. */
export function startRun(plan: RunPlan, sources: Layer.Layer<RunSources>, hooks: RunHooks): RunHandle {
  const runtime = ManagedRuntime.make(sources);
  const stop = Effect.runSync(Deferred.make<string>());
  const done = runtime
    .runPromiseExit(runInvocation(plan, hooks, stop))
    .then((exit) => (Exit.isSuccess(exit) ? exit.value : Promise.reject(Cause.squash(exit.cause))))
    .finally(() => runtime.dispose());
  return {
    done,
    interrupt(signal) {
      Effect.runSync(Deferred.succeed(stop, signal));
    },
  };
}
