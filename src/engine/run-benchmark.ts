/**
 * Executes a run plan: opens (or resumes) the run's event log, records `RunStarted`, decides
 * from the resume projection which jobs need work, supervises them, records how the invocation
 * ended and writes every projection. Reports progress through callbacks; the caller owns the
 * terminal and the process.
 */
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import { jobIdentityFields, type JobSpec } from "../config/matrix.js";
import type { ResumeMode } from "../config/run-config.js";
import type { Llm } from "../llm/llm.js";
import type { FinishedStatus, JobSpecRecord, StoredEvent } from "../events/event-schema.js";
import { EventStore } from "../events/event-store.js";
import { ProjectionWriter } from "../events/projection-writer.js";
import { LIVE_RUN_FILES, START_RUN_FILES } from "../events/projections/run-files.js";
import { sanitize, yamlArtifact } from "../events/projections/artifact-format.js";
import { RunState, type JobView } from "../events/run-state.js";
import { findTrainer } from "../opt/trainer-catalog.js";
import type { TaskRegistry } from "../tasks/task-registry.js";
import { captureEnvironment, captureGit, llmInfo } from "./run-environment.js";
import type { RunPlan } from "./run-plan.js";
import { superviseJobs, type PlannedJob } from "./supervisor.js";

/** Statuses a resume mode keeps; every other matrix job runs again (spec §5.12). */
function needsRun(status: FinishedStatus | null, mode: ResumeMode, resuming: boolean): boolean {
  if (!resuming || mode === "none") return true;
  if (mode === "auto") return status === null || !["ok", "skipped"].includes(status);
  return status !== null && ["failed", "timeout", "cancelled"].includes(status);
}

export interface RunHooks {
  /** A job's attempt finished (any status). */
  readonly onJobFinished?: (job: JobView, state: RunState) => void;
  /** Printed before jobs start when an existing run is resumed. */
  readonly onResume?: (runId: string, done: number, total: number) => void;
  readonly now?: () => Date;
  /** How often run-level files are refreshed while jobs finish (ms). */
  readonly refreshMs?: number;
}

export interface RunReport {
  readonly plan: RunPlan;
  readonly state: RunState;
  readonly interrupted: boolean;
  readonly ranJobs: number;
}

export interface RunHandle {
  readonly done: Promise<RunReport>;
  /** Stop starting jobs and cancel running ones; the run records RunInterrupted and returns. */
  interrupt(signal: string): void;
}

function specRecord(job: RunPlan["jobs"][number]): JobSpecRecord {
  return sanitize({ ...jobIdentityFields(job), resolved_kwargs: job.resolved_kwargs }) as JobSpecRecord;
}

/** The outside world a run needs, wired in by the caller (the CLI). */
export interface RunAdapters {
  readonly registry: TaskRegistry;
  readonly createLlm: (job: JobSpec) => Llm;
}

export function startRun(plan: RunPlan, adapters: RunAdapters, hooks: RunHooks = {}): RunHandle {
  const now = hooks.now ?? (() => new Date());
  const store = EventStore.open(plan.runDir, plan.runId, { create: true, now });
  const state = RunState.fold(store.readAll());
  const writer = new ProjectionWriter(plan.runDir, state.lastSeq === 0);
  let lastRefresh = 0;
  const refreshMs = hooks.refreshMs ?? 1000;

  // Every append flows into the live state; a finished job writes its files at once.
  const liveStore = {
    append(events: Parameters<EventStore["append"]>[0]): StoredEvent[] {
      const stored = store.append(events);
      for (const event of stored) state.apply(event);
      for (const event of stored) {
        if (event.type !== "JobFinished" || event.job_id === null) continue;
        const job = state.jobs.get(event.job_id)!;
        writer.writeJob(state, job);
        hooks.onJobFinished?.(job, state);
        if (Date.now() - lastRefresh >= refreshMs) {
          writer.writeRunFiles(state, LIVE_RUN_FILES);
          lastRefresh = Date.now();
        }
      }
      return stored;
    },
  };

  const planned: PlannedJob[] = [];
  const notRun: Record<string, string> = {};
  for (const spec of plan.jobs) {
    if (needsRun(state.statusOf(spec.job_id), plan.resumeMode, plan.resuming)) {
      planned.push({ spec, attempt: (state.jobs.get(spec.job_id)?.attempt ?? 0) + 1 });
    } else if (state.statusOf(spec.job_id) === null) notRun[spec.job_id] = "resume_mode_failed_skips_never_run_jobs";
  }
  if (plan.resuming) hooks.onResume?.(plan.runId, plan.jobs.length - planned.length - Object.keys(notRun).length, plan.jobs.length);

  const invocation = state.invocations + 1;
  const startedAt = now();
  liveStore.append([
    {
      type: "RunStarted",
      data: {
        invocation,
        config_hash: plan.configHash,
        config_snapshot: sanitize(plan.snapshot) as Record<string, unknown>,
        config_snapshot_yaml: yamlArtifact(plan.snapshot),
        matrix: plan.jobs.map(specRecord),
        mode: plan.config.mode,
        max_workers: plan.config.max_workers,
        job_timeout_seconds: plan.timeoutSeconds,
        resume_mode: plan.resumeMode,
        fail_fast: plan.config.fail_fast,
        tags: [...plan.config.tags],
        llm: llmInfo(plan.config, process.env),
        env: captureEnvironment(process.env, startedAt),
        git: captureGit(),
      },
    },
  ]);
  writer.writeRunFiles(state, START_RUN_FILES);

  const program = superviseJobs({
    jobs: planned,
    maxWorkers: plan.config.max_workers,
    failFast: plan.config.fail_fast,
    context: { store: liveStore, registry: adapters.registry, createLlm: adapters.createLlm, findTrainer, invocation, timeoutSeconds: plan.timeoutSeconds, now },
    failedJob: (id) => ["failed", "timeout"].includes(state.statusOf(id) ?? ""),
  });
  const fiber = Effect.runFork(program);
  let interruptedBy: string | null = null;

  const done = Effect.runPromise(Fiber.await(fiber)).then((exit) => {
    try {
      // Jobs whose planned attempt never began were stopped by fail-fast or by the interruption.
      const started = new Set(planned.filter((j) => (state.jobs.get(j.spec.job_id)?.attempt ?? 0) >= j.attempt).map((j) => j.spec.job_id));
      for (const job of planned) if (!started.has(job.spec.job_id)) notRun[job.spec.job_id] = interruptedBy !== null ? "interrupted_before_start" : "fail_fast_stopped";
      if (Exit.isFailure(exit) && !Exit.isInterrupted(exit)) throw new Error(`supervisor failed: ${String(exit.cause)}`);
      if (interruptedBy !== null) {
        const running = planned.filter((j) => state.jobs.get(j.spec.job_id)?.finished?.status === "cancelled").map((j) => j.spec.job_id);
        liveStore.append([{ type: "RunInterrupted", data: { invocation, signal: interruptedBy, running_jobs: running, not_run: notRun } }]);
      } else {
        const counts: Record<string, number> = {};
        for (const job of state.orderedJobs()) if (job.finished) counts[job.finished.status] = (counts[job.finished.status] ?? 0) + 1;
        liveStore.append([{ type: "RunFinished", data: { invocation, counts, not_run: notRun } }]);
      }
      writer.writeAll(state);
      return { plan, state, interrupted: interruptedBy !== null, ranJobs: started.size };
    } finally {
      store.close();
    }
  });

  return {
    done,
    interrupt(signal) {
      if (interruptedBy !== null) return;
      interruptedBy = signal;
      Effect.runFork(Fiber.interrupt(fiber));
    },
  };
}
