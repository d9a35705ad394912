/**
 * The projections as a subscriber: folds committed events into the run state and writes the run
 * directory's files from it. A finished job's files are written at once, run-level files at most
 * every `refreshMs` (less often when rendering them takes long); `catchUp` writes everything and
 * records the log position the files now reflect, so a command that opens the run later knows whether they are behind (a kill after the
 * last commit but before the last write) and repairs them.
 */
import type { Subscriber } from "./event-bus.js";
import type { StoredEvent } from "./event-schema.js";
import { ProjectionWriter } from "./projection-writer.js";
import { LIVE_RUN_FILES, START_RUN_FILES } from "./projections/run-files.js";
import type { RunState } from "./run-state.js";

export const PROJECTIONS = "projections";

export interface ProjectionLog {
  readAfter(afterSeq: number): StoredEvent[];
  /** Every event of one job, in order (a released job's details are folded again from them). */
  jobHistory(jobId: string): StoredEvent[];
  subscriberPosition(name: string): number;
  recordSubscriberPosition(name: string, position: number): void;
}

export class ProjectionSubscriber implements Subscriber {
  readonly name = PROJECTIONS;
  private nextRefresh = 0;

  constructor(
    readonly state: RunState,
    private readonly writer: ProjectionWriter,
    private readonly log: ProjectionLog,
    /** How often run-level files are refreshed while jobs finish (ms). */
    private readonly refreshMs = 1000,
    /** Drop a job's details once its files are written (a writer's run, where each job finishes once). */
    private readonly releaseFinished = false,
  ) {}

  handle(events: readonly StoredEvent[]): void {
    // Events it was handed ahead of their commit (`catchUp`) come again once committed: nothing is new.
    if (events.at(-1)!.seq <= this.state.lastSeq) return;
    this.fold(events);
    for (const event of events) {
      if (event.type === "RunStarted") this.writer.writeRunFiles(this.state, START_RUN_FILES);
      if (event.type === "JobFinished" && event.job_id !== null) {
        this.writer.writeJob(this.state, this.state.jobs.get(event.job_id)!);
        // Its attempt is over for this process: nothing but run-level files needs its details.
        if (this.releaseFinished) this.state.releaseDetail(event.job_id);
      }
    }
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
   * The state is folded to the recorded position: the files on disk reflect it, and only jobs
   * whose events (or the run's LLM columns) change from here on are rendered again.
   */
  assumeCurrent(): void {
    this.writer.assumeCurrent(this.state);
  }

  /**
   * Folds what the state has not seen, then `ahead` (events about to be committed, as they will be
   * stored), writes every file, and records the position they reflect.
   */
  catchUp(ahead: readonly StoredEvent[] = []): void {
    this.fold(this.log.readAfter(this.state.lastSeq));
    this.fold(ahead);
    // A job whose files must be rendered again (the run's LLM columns changed) needs its details.
    for (const job of this.state.jobs.values()) if (job.released && !this.writer.isCurrent(this.state, job)) this.restore(job.job_id);
    this.writer.writeAll(this.state);
    this.log.recordSubscriberPosition(PROJECTIONS, this.state.lastSeq);
  }

  /** Folds `events`, giving a released job its details back before events of its own. */
  private fold(events: readonly StoredEvent[]): void {
    for (const event of events) {
      if (event.job_id !== null && event.seq > this.state.lastSeq && this.state.jobs.get(event.job_id)?.released === true) this.restore(event.job_id);
      this.state.apply(event);
    }
  }

  private restore(jobId: string): void {
    this.state.restoreDetail(jobId, this.log.jobHistory(jobId));
  }
}
