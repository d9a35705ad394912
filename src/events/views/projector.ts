/**
 * The projector: folds each event into the views through a table of projections. Live runs (the
 * writer's commits), the derived files, `replay`, `replay --verify`, the dashboard and the run
 * listing all drive it, each with the table it needs. An event at or below the views' position is
 * ignored, so applying one twice is applying it once.
 */
import type { EventType, StoredEvent } from "../event-schema.js";
import type { RunState } from "../run-state.js";
import { jobAttemptProjection } from "./job-attempt-projection.js";
import { jobDetailProjection } from "./job-detail-projection.js";
import { jobLogProjection } from "./job-log-projection.js";
import type { JobView } from "./job-view.js";
import { llmUseProjection } from "./llm-use-projection.js";
import type { JobProjection, RunProjection } from "./projection.js";
import { runHeaderProjection } from "./run-header-projection.js";
import { releaseView } from "./view-memory.js";

export interface ProjectionTable {
  readonly run: readonly RunProjection[];
  /** In order: a later one may read what an earlier one folded from the same event. */
  readonly job: readonly JobProjection[];
  /**
   * Memory policy: a job's view is released (views/view-memory.ts) once its attempt finished, for
   * views that never render a job's files.
   */
  readonly releaseAtFinish: boolean;
}

/** Every read model: what a job's files and the run's reports are rendered from. */
export const WHOLE_RUN: ProjectionTable = {
  run: [runHeaderProjection, llmUseProjection],
  job: [jobAttemptProjection, jobDetailProjection, jobLogProjection],
  releaseAtFinish: false,
};

/**
 * The writer's own views (plans, budgets, the console, the closing report): attempts, outcomes
 * and LLM use; a job's state, evaluations, iterations and log stay empty. A writer reopening a
 * big run reads only the rows these fold (a trivial job has 2 of its 9).
 */
export const WRITER: ProjectionTable = {
  run: [runHeaderProjection, llmUseProjection],
  job: [jobAttemptProjection],
  releaseAtFinish: true,
};

/** The event types a table folds (a reader may skip the others' rows). */
export function typesOf(table: ProjectionTable): EventType[] {
  const types = new Set<EventType>();
  for (const projection of [...table.run, ...table.job]) for (const type of projection.canHandle) types.add(type);
  return [...types].sort();
}

/** Folds `event` into `run` through `table`. */
export function project(run: RunState, table: ProjectionTable, event: StoredEvent): void {
  if (event.seq <= run.lastSeq) return;
  run.lastSeq = event.seq;
  run.runId = event.run_id;
  run.lastTs = event.ts;
  const jobId = event.job_id;
  if (jobId === null) {
    let handled = false;
    for (const projection of table.run) {
      if (!projection.canHandle.has(event.type)) continue;
      projection.evolve(run, event);
      handled = true;
    }
    if (!handled) throw new Error(`${event.type} is not a run-level event`);
    return;
  }
  if (!handles(table, event)) return;
  const view = run.jobs.get(jobId);
  if (view === undefined) throw new Error(`event ${event.seq}: job ${jobId} is not in any matrix of this run`);
  for (const projection of table.run) if (projection.canHandle.has(event.type)) projection.evolve(run, event);
  projectJob(view, table, event, run);
  if (table.releaseAtFinish && event.type === "JobFinished") releaseView(view);
}

/** Folds one of the job's events into its view (the run-wide views are left alone). */
export function projectJob(view: JobView, table: ProjectionTable, event: StoredEvent, run: RunState): void {
  view.lastSeq = event.seq;
  for (const projection of table.job) if (projection.canHandle.has(event.type)) projection.evolve(view, event, run);
}

function handles(table: ProjectionTable, event: StoredEvent): boolean {
  for (const projection of table.job) if (projection.canHandle.has(event.type)) return true;
  for (const projection of table.run) if (projection.canHandle.has(event.type)) return true;
  return false;
}
