/**
 * The projections as a subscriber: renders the run directory's files from the run's one view store,
 * which the writer folds each commit into before any subscriber hears of it (run-session.ts), so
 * the events handed here are only what to render: a finished job's files at once (then its details
 * are dropped: views/view-memory.ts), run-level files at most every `refreshMs` (less often when
 * rendering them takes long). `catchUp` writes everything and records the log position the files
 * now reflect, so a command that opens the run later knows whether they are behind (a kill after
 * the last commit but before the last write) and repairs them.
 */
import type { Subscriber } from "./event-bus.js";
import type { StoredEvent } from "./event-schema.js";
import { ProjectionWriter } from "./projection-writer.js";
import { LIVE_RUN_FILES, START_RUN_FILES } from "./projections/run-files.js";
import type { JobView, RunState } from "./run-state.js";

export const PROJECTIONS = "projections";

export interface ProjectionLog {
  /** Every event of one job, in order (a released job's details are folded again from them). */
  jobHistory(jobId: string): StoredEvent[];
  subscriberPosition(name: string): number;
  recordSubscriberPosition(name: string, position: number): void;
}

export class ProjectionSubscriber implements Subscriber {
  readonly name = PROJECTIONS;
  private nextRefresh = 0;
  /** The last event handed here (the store itself may be further on). */
  private handled = 0;

  constructor(
    /** The run's views, folded by the writer: read and released here, never folded. */
    readonly state: RunState,
    private readonly writer: ProjectionWriter,
    private readonly log: ProjectionLog,
    /** How often run-level files are refreshed while jobs finish (ms). */
    private readonly refreshMs = 1000,
  ) {}

  handle(events: readonly StoredEvent[]): void {
    // Events it rendered ahead of their commit (`catchUp`) come again once committed: nothing is new.
    if (events.at(-1)!.seq <= this.handled) return;
    for (const event of events) {
      if (event.seq <= this.handled) continue;
      if (event.type === "RunStarted") this.writer.writeRunFiles(this.state, START_RUN_FILES);
      if (event.type === "JobFinished" && event.job_id !== null) this.writeFinished(event.job_id);
    }
    this.handled = events.at(-1)!.seq;
    if (Date.now() >= this.nextRefresh) {
      const started = Date.now();
      this.writer.writeRunFiles(this.state, LIVE_RUN_FILES);
      // A big run's tables take long to render: refreshing them must not become the work itself.
      this.nextRefresh = Date.now() + Math.max(this.refreshMs, 4 * (Date.now() - started));
    }
  }

  /** The log position the files on disk were recorded to reflect. */
  recordedPosition(): number {
    return this.log.subscriberPosition(PROJECTIONS);
  }

  /**
   * The files on disk reflect the recorded position: the jobs `unchanged` holds for (none of
   * their events after it) are not rendered again unless their events or the run's LLM columns
   * change from here on.
   */
  assumeCurrent(unchanged: (job: JobView) => boolean): void {
    this.writer.assumeCurrent(this.state, unchanged);
  }

  /**
   * Folds `ahead` (events about to be committed, as they will be stored) into the views, writes
   * every file, records the position they reflect, and drops every job's details.
   */
  catchUp(ahead: readonly StoredEvent[] = []): void {
    for (const event of ahead) this.state.apply(event);
    // A job whose files must be rendered again (its events, or the run's LLM columns, changed) needs its details.
    for (const job of this.state.jobs.values()) if (job.released && !this.writer.isCurrent(this.state, job)) this.restore(job.job_id);
    this.writer.writeAll(this.state);
    this.handled = Math.max(this.handled, this.state.lastSeq);
    this.log.recordSubscriberPosition(PROJECTIONS, this.state.lastSeq);
    this.state.releaseAll();
  }

  /** A job whose attempt just finished: its files, then its details dropped (nothing but run-level files needs them). */
  private writeFinished(jobId: string): void {
    const view = this.state.jobs.get(jobId);
    if (view === undefined) return;
    if (view.released) this.restore(jobId);
    this.writer.writeJob(this.state, this.state.jobs.get(jobId)!);
    this.state.releaseDetail(jobId);
  }

  private restore(jobId: string): void {
    this.state.restoreDetail(jobId, this.log.jobHistory(jobId));
  }
}
