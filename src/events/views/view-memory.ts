/**
 * Memory policy over the views, apart from how they fold: a job's view is released once its files
 * are written (what only they need is dropped, so memory does not grow with the matrix), restored
 * from its events when its files must be rendered again, and forgotten by a reader that needs no
 * run-level file. Run-level views, counts and totals are never touched.
 */
import type { StoredEvent } from "../event-schema.js";
import type { RunState } from "../run-state.js";
import { EMPTY_LIST, finishedAttempt, newJobView, NO_EVALUATIONS, NO_FINISHED_DETAIL, NO_ITERATIONS, NO_MARKS, type JobView } from "./job-view.js";
import { projectJob, type ProjectionTable } from "./projector.js";

/** Drops what only the job's own files need (its log, evaluations, iteration history, parameter values). */
export function releaseView(view: JobView): void {
  view.released = true;
  view.log = "";
  // A job's next attempt starts with JobQueued, which gives it containers of its own again.
  view.evaluations = NO_EVALUATIONS;
  view.iterations = NO_ITERATIONS;
  view.iterationMarks = NO_MARKS;
  const finished = view.finished;
  if (finished !== null && !heldEmpty(finished)) view.finished = finishedAttempt(finished, NO_FINISHED_DETAIL);
}

const heldEmpty = (f: NonNullable<JobView["finished"]>) =>
  f.parameters === EMPTY_LIST && f.initial_values === null && f.final_values === null && f.best_values === null && f.iterations === NO_ITERATIONS && f.iteration_marks === NO_MARKS;

/**
 * A released view given its details back, for its files to be rendered again: its events as the
 * log holds them (`history`, its stream; those after the views' position are left out) folded
 * through `table`'s job projections into a new view. The run-wide views already count them.
 */
export function restoreView(run: RunState, table: ProjectionTable, jobId: string, history: readonly StoredEvent[]): void {
  const released = run.jobs.get(jobId);
  if (released === undefined || !released.released) return;
  const view = newJobView(released.spec);
  for (const event of history) if (event.seq <= run.lastSeq) projectJob(view, table.job, event, run);
  run.jobs.set(jobId, view);
}
