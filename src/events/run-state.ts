/**
 * The view store: a run's views as its projections leave them (views/projector.ts), one per job
 * (its latest attempt) plus each run projection's state, kept by projection (`view`). It holds and
 * answers; it does not fold: which projections run is the table it is given (`WHOLE_RUN`: every
 * read model; `WRITER`: what a released view folds), and what is kept of a job once its files are
 * written is the memory policy's (views/view-memory.ts). One store serves the writer and the
 * derived files of a run (run-session.ts). Applying an event twice is the same as applying it once
 * (events at or below `lastSeq` are ignored), so live runs and `replay` reach the same views.
 */
import type { FinishedStatus, StoredEvent } from "./event-schema.js";
import { SharedValues } from "./shared-values.js";
import type { JobView, RunStartedData } from "./views/job-view.js";
import { llmUseProjection } from "./views/llm-use-projection.js";
import type { Projection } from "./views/projection.js";
import { project, WHOLE_RUN, WRITER, type ProjectionTable } from "./views/projector.js";
import { runHeaderProjection } from "./views/run-header-projection.js";
import type { LlmUse } from "./views/totals.js";
import { releaseView, restoreView } from "./views/view-memory.js";

export type { EvaluationData, FinishedAttempt, IterationData, IterationMark, JobFinishedData, JobView, RunStartedData } from "./views/job-view.js";
export { reportedCost, zeroCost, zeroTokens, type CostTotal, type LlmUse, type TokenTotals } from "./views/totals.js";

export class RunState {
  lastSeq = 0;
  runId = "";
  lastTs = "";
  readonly jobs = new Map<string, JobView>();
  /** What every job's spec and outcome repeat (kwargs, names), held once (memory flat in the matrix). */
  readonly shared = new SharedValues();
  /** Each run projection's state, made by its `initialState` when first asked for. */
  private readonly states = new Map<Projection<unknown>, unknown>();

  /**
   * Memory policy: a job's details are dropped at its `JobFinished` (views/view-memory.ts). Off
   * while something renders the job's files from these views, which drops them once written.
   */
  releaseFinished: boolean;

  /** @param table the projections that fold events into these views. */
  constructor(private readonly table: ProjectionTable = WHOLE_RUN) {
    this.releaseFinished = table.job === table.kept;
  }

  /** Views that never hold a job's details (what the writer reads of a run): see `WRITER`. */
  static writer(): RunState {
    return new RunState(WRITER);
  }

  static fold(events: Iterable<StoredEvent>): RunState {
    const state = new RunState();
    for (const event of events) state.apply(event);
    return state;
  }

  apply(event: StoredEvent): void {
    project(this, this.table, event);
  }

  /** The log holds events up to `seq` that these views did not need (rows of types their table skips). */
  skipTo(seq: number): void {
    this.lastSeq = Math.max(this.lastSeq, seq);
  }

  /** Drops what only the job's own files need, once they are written (views/view-memory.ts). */
  releaseDetail(jobId: string): void {
    const view = this.jobs.get(jobId);
    if (view !== undefined) releaseView(view);
  }

  /**
   * Gives a released view its details back from `history` (its stream as the log holds it), for
   * its files to be rendered again; views that never render a job's files are left as they are.
   */
  restoreDetail(jobId: string, history: readonly StoredEvent[]): void {
    if (this.table.job === this.table.kept) return;
    restoreView(this, this.table, jobId, history);
  }

  /** Drops every job's details (a writer's views once opened: what it folded of them is not all of them). */
  releaseAll(): void {
    for (const view of this.jobs.values()) releaseView(view);
  }

  /**
   * Forgets a job whose every event has been applied (a reader of the whole log that needs no
   * run-level file: `replay --verify`), so that the views hold the jobs being read, not the
   * matrix. A later start recreates its view, empty, as it does for a job that never ran.
   */
  forgetJob(jobId: string): void {
    this.jobs.delete(jobId);
  }

  /** The state `projection` keeps in this store (its initial state until an event changes it). */
  view<S>(projection: Projection<S>): S {
    let state = this.states.get(projection as Projection<unknown>);
    if (state === undefined) this.states.set(projection as Projection<unknown>, (state = projection.initialState()));
    return state as S;
  }

  // The run header's and LLM use's views, by the names every reader of a run uses.
  /** The latest RunStarted (a resume appends a new one). */
  get started(): RunStartedData | null {
    return this.view(runHeaderProjection).started;
  }
  /** The latest config name an invocation recorded (a resume from the run's snapshot records none). */
  get configName(): string | null {
    return this.view(runHeaderProjection).configName;
  }
  get startedTs(): string {
    return this.view(runHeaderProjection).startedTs;
  }
  get invocations(): number {
    return this.view(runHeaderProjection).invocations;
  }
  /** Why jobs of the latest invocation never ran, by job id. */
  get notRun(): Record<string, string> {
    return this.view(runHeaderProjection).notRun;
  }
  get interrupted(): boolean {
    return this.view(runHeaderProjection).interrupted;
  }
  get finished(): boolean {
    return this.view(runHeaderProjection).finished;
  }
  /** Job ids in report order: the latest matrix, then jobs only earlier invocations knew. */
  get order(): string[] {
    return this.view(runHeaderProjection).order;
  }
  /** Billed LLM use over every attempt (replayed replies excluded), by model and by role. */
  get llmByModel(): Map<string, LlmUse> {
    return this.view(llmUseProjection).byModel;
  }
  get llmByRole(): Map<string, LlmUse> {
    return this.view(llmUseProjection).byRole;
  }
  /** Preflight requests of every invocation (mode real), billed like any call. */
  get preflight(): LlmUse {
    return this.view(llmUseProjection).preflight;
  }

  /** Status of a job for resume: its latest finished status, or null if no attempt finished. */
  statusOf(jobId: string): FinishedStatus | null {
    return this.jobs.get(jobId)?.finished?.status ?? null;
  }

  /** Jobs in report order. */
  orderedJobs(): JobView[] {
    return this.order.map((id) => this.jobs.get(id)!);
  }
}

