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
   * What a released view (views/view-memory.ts: its files written, its details dropped) still
   * folds: everything plans, budgets, the console and the run-level reports read of a job.
   */
  readonly kept: readonly JobProjection[];
}

/** What a job keeps once released: its attempts, outcome and LLM use. */
const KEPT: readonly JobProjection[] = [jobAttemptProjection];

/** Every read model: what a job's files and the run's reports are rendered from. */
export const WHOLE_RUN: ProjectionTable = {
  run: [runHeaderProjection, llmUseProjection],
  job: [jobAttemptProjection, jobDetailProjection, jobLogProjection],
  kept: KEPT,
};

/**
 * What a released view folds, as a table: the rows a writer reopening a big run reads (a trivial
 * job has 2 of its 9), its views released; what plans, budgets, the console, the closing report
 * and the run-level reports read.
 */
export const WRITER: ProjectionTable = {
  run: [runHeaderProjection, llmUseProjection],
  job: KEPT,
  kept: KEPT,
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
      projection.evolve(run.view(projection), event, run);
      handled = true;
    }
    if (!handled) throw new Error(`${event.type} is not a run-level event`);
    return;
  }
  if (!handles(table, event)) return;
  const view = run.jobs.get(jobId);
  if (view === undefined) throw new Error(`event ${event.seq}: job ${jobId} is not in any matrix of this run`);
  for (const projection of table.run) if (projection.canHandle.has(event.type)) projection.evolve(run.view(projection), event, run);
  projectJob(view, view.released ? table.kept : table.job, event, run);
  if (run.releaseFinished && event.type === "JobFinished") releaseView(view);
}

/** Folds one of the job's events into its view through `projections` (the run-wide views are left alone). */
export function projectJob(view: JobView, projections: readonly JobProjection[], event: StoredEvent, run: RunState): void {
  view.lastSeq = event.seq;
  for (const projection of projections) if (projection.canHandle.has(event.type)) projection.evolve(view, event, run);
}

function handles(table: ProjectionTable, event: StoredEvent): boolean {
  for (const projection of table.job) if (projection.canHandle.has(event.type)) return true;
  for (const projection of table.run) if (projection.canHandle.has(event.type)) return true;
  return false;
}
