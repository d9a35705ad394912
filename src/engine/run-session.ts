/**
 * A run directory opened for writing: the event log (with its writer lock), the writer's lean run
 * state (writer-state.ts: its snapshot and the events after it), and the subscribers that follow
 * the log. The mirrors and projections are kept off the jobs' path (derived-files.ts), which
 * first repairs what a crash left behind. Appends are committed in groups (event-store.ts);
 * each committed group is folded into the run state and then handed to the subscribers. `finish`
 * commits what is pending, waits until every derived file reflects the log, records the position
 * the projections reflect and saves the state's snapshot.
 *
 * `finishWith(RunFinished)` writes the reports before it commits the event: a finished run's
 * reports are complete whenever the log says it finished, a kill -9 at any instant included (the
 * reports are rendered as the event will leave them; only its jsonl mirror line follows the commit,
 * and a lagging mirror is repaired from the log by whoever opens the run next).
 */
import type { Contents } from "../events/content-ref.js";
import type { Subscriber } from "../events/event-bus.js";
import { EventBus } from "../events/event-bus.js";
import { decodeEvent, EVENT_SCHEMA_VERSION, jobStream, RUN_STREAM, type NewEvent, type StoredEvent } from "../events/event-schema.js";
import { EventStore } from "../events/event-store.js";
import { DerivedFiles, type DerivedFilesOutcome } from "../events/derived-files.js";
import { PROJECTIONS } from "../events/projection-subscriber.js";
import type { RunState } from "../events/run-state.js";
import { openWriterState, saveWriterState } from "../events/writer-state.js";
import { saveFinishedRun, type FinishedRunRecord } from "../events/finished-run-record.js";
import { EventLogWriteError } from "../events/event-log-errors.js";
import { SubscriberReports, type SubscriberReport } from "./subscriber-reports.js";
import { codeIdentity } from "./plan-digest.js";

export interface SessionOptions {
  readonly now?: () => Date;
  /** What holds the writer lock, as a second writer is told. */
  readonly command: string;
  /** Where problems that are not a job's outcome are told (a subscriber failing, ...). */
  readonly report: (text: string) => void;
  /** How often run-level files are refreshed while jobs finish (ms). */
  readonly refreshMs?: number;
  /** More subscribers (the console), notified after the mirrors and projections. */
  readonly subscribers?: (state: RunState) => readonly Subscriber[];
}

/** The log of a run directory opened for writing, and the writer's state folded from it (before anything follows it). */
export interface OpenedRunLog {
  readonly runDir: string;
  readonly store: EventStore;
  readonly state: RunState;
  /** Fixes the time the store gives the next appends (null: the clock's). */
  readonly pinClock: (at: Date | null) => void;
  readonly now: () => Date;
  /** What the follower and the subscribers report, held back or dropped where a full disk makes it noise. */
  readonly reports: SubscriberReports;
}

export class RunSession {
  private constructor(
    readonly runDir: string,
    private readonly store: EventStore,
    readonly state: RunState,
    private readonly derived: DerivedFiles,
    private readonly bus: EventBus,
    private readonly pinClock: (at: Date | null) => void,
    private readonly now: () => Date,
    private readonly reports: SubscriberReports,
  ) {}

  /**
   * Opens `runDir`'s log for writing (the writer lock) and folds the writer's state; throws
   * `RunLockedError`, `EventLogWriteError` or `EventLogCorruptError`. Closing it is `log.store.close()`.
   */
  static openLog(runDir: string, runId: string, options: Pick<SessionOptions, "now" | "command">): OpenedRunLog {
    const now = options.now ?? (() => new Date());
    let pinned: Date | null = null;
    const store = EventStore.open(runDir, runId, { command: options.command, groupCommit: true, now: () => pinned ?? now() });
    try {
      const state = openWriterState(store);
      const pinClock = (at: Date | null) => {
        pinned = at;
      };
      return { runDir, store, state, pinClock, now, reports: new SubscriberReports() };
    } catch (error) {
      store.close();
      throw error;
    }
  }

  /** The follower that keeps the mirrors and projections of `log` (closed by its owner, before the log). */
  static follower(log: OpenedRunLog, options: Pick<SessionOptions, "refreshMs" | "report">): DerivedFiles {
    return new DerivedFiles({ runDir: log.runDir, state: log.state, fresh: log.state.lastSeq === 0, ...(options.refreshMs !== undefined ? { refreshMs: options.refreshMs } : {}) }, log.reports.to(options.report));
  }

  /** The session over an opened log and its follower: each commit is folded into the state, then published. Closing is the owners'. */
  static attach(log: OpenedRunLog, derived: DerivedFiles, options: Pick<SessionOptions, "report" | "subscribers">): RunSession {
    const { store, state } = log;
    const report = log.reports.to(options.report);
    const bus = new EventBus([derived, ...(options.subscribers?.(state) ?? [])], report, state.lastSeq);
    store.onCommit(
      (events) => {
        for (const event of events) state.apply(event);
        bus.publish(events);
      },
      // Every later append fails with the same error and the run stops with it, in one line: a
      // failure it cannot name that way (a bug) is told here, when it happened.
      (error) => (error instanceof EventLogWriteError ? log.reports.logHasFailed() : report(`event log: ${error instanceof Error ? error.message : String(error)}`, error)),
    );
    return new RunSession(log.runDir, store, state, derived, bus, log.pinClock, log.now, log.reports);
  }

  /** Opens `runDir` for writing, with its follower; throws `RunLockedError`, `EventLogWriteError` or `EventLogCorruptError`. `close()` ends both. */
  static open(runDir: string, runId: string, options: SessionOptions): RunSession {
    const log = RunSession.openLog(runDir, runId, options);
    try {
      return RunSession.attach(log, RunSession.follower(log, options), options);
    } catch (error) {
      log.store.close();
      throw error;
    }
  }

  /** Records the events of `stream` at `expectedVersion` (with the texts they refer to); the state and subscribers hear of them once committed. */
  append(stream: string, expectedVersion: number, events: readonly NewEvent[], contents?: Contents): StoredEvent[] {
    try {
      return this.store.append(stream, expectedVersion, events, contents);
    } catch (error) {
      this.noteLogFailure(error);
      throw error;
    }
  }

  /** Appends run-level events at the run stream's current version. */
  appendRunEvents(events: readonly NewEvent[]): StoredEvent[] {
    return this.append(RUN_STREAM, this.store.streamVersion(RUN_STREAM), events);
  }

  contents(refs: Iterable<string>): Map<string, string> {
    return this.store.contents(refs);
  }

  /** A job's stream as the log holds it, every attempt. */
  history(jobId: string): StoredEvent[] {
    return this.store.streamEvents(jobStream(jobId));
  }

  streamVersion(stream: string): number {
    return this.store.streamVersion(stream);
  }

  /** Commits the appends still grouped, so that the state holds every event appended so far. */
  commitPending(): void {
    try {
      this.store.flush();
    } catch (error) {
      // The group was lost (the appender heard why); the state follows what did commit.
      this.noteLogFailure(error);
    }
  }

  /** A log that cannot be written stops the run with its own line: the subscribers say no more. */
  private noteLogFailure(error: unknown): void {
    if (error instanceof EventLogWriteError) this.reports.logHasFailed();
  }

  /**
   * Brings every subscriber level with the log and writes every projection. Returns what is
   * still behind (after reporting why): the files can be rebuilt later with `trace-bench replay`.
   */
  async finish(report: (text: string) => void): Promise<string[]> {
    try {
      this.commitPending();
      const lastSeq = this.store.lastSeq();
      const behind = this.settleOthers(lastSeq);
      // It lets go of its own state once level, before the snapshot below is built, so that the two
      // are not in memory at once (the peak of a big run).
      return [...behind, ...this.closeDerived(this.derived.finish(lastSeq), lastSeq, this.reports.to(report))];
    } finally {
      this.reports.settle();
    }
  }

  /**
   * Commits `closing` (the run's last event) after every projection reflects it, then brings the
   * mirrors level and saves the snapshot. Throws what the append threw (the projections are then
   * recorded as behind the log, which the next writer or `replay` mends). Returns what is behind.
   */
  async finishWith(closing: NewEvent, report: (text: string) => void): Promise<string[]> {
    try {
      return this.commitClosing(closing, this.reports.to(report));
    } finally {
      this.reports.settle();
    }
  }

  private commitClosing(closing: NewEvent, report: SubscriberReport): string[] {
    this.commitPending();
    const lastSeq = this.store.lastSeq();
    const behind = this.settleOthers(lastSeq);
    const ahead = this.upcoming(closing, lastSeq);
    const levelled = this.derived.level(lastSeq, ahead);
    this.pinClock(new Date(ahead.ts));
    let stored: StoredEvent | undefined;
    try {
      stored = this.appendRunEvents([closing])[0];
    } catch (error) {
      this.derived.finish(lastSeq);
      throw error;
    } finally {
      this.pinClock(null);
    }
    const derived = this.derived.finish(ahead.seq);
    // The store is this run's only writer and the clock was pinned: the event is the one rendered.
    const asRendered = stored !== undefined && stored.seq === ahead.seq && stored.position === ahead.position && stored.ts === ahead.ts;
    if (!asRendered) report(`projections: ${closing.type} was committed as seq ${stored?.seq}, not as rendered (seq ${ahead.seq}); rebuild the reports with 'trace-bench replay'`);
    const outcome = {
      behind: [...new Set([...levelled.behind, ...derived.behind, ...(asRendered ? [] : [PROJECTIONS])])],
      projectionsAt: asRendered && levelled.projectionsAt === ahead.seq ? ahead.seq : null,
    };
    return [...behind, ...this.closeDerived(outcome, ahead.seq, report)];
  }

  /** Every subscriber but the derived files level with the log up to `lastSeq`; those still behind. */
  private settleOthers(lastSeq: number): string[] {
    return this.bus.settle(lastSeq).filter((name) => name !== this.derived.name);
  }

  /** `event` as the log will store it when appended next to the run stream (nothing is pending). */
  private upcoming(event: NewEvent, lastSeq: number): StoredEvent {
    return decodeEvent({
      seq: lastSeq + 1,
      v: EVENT_SCHEMA_VERSION,
      stream: RUN_STREAM,
      position: this.store.streamVersion(RUN_STREAM) + 1,
      type: event.type,
      run_id: this.store.runId,
      job_id: null,
      ts: this.now().toISOString(),
      data: JSON.parse(JSON.stringify(event.data)) as unknown,
    });
  }

  /** Records the position the projections reflect and saves the state's snapshot; returns what is behind. */
  private closeDerived(derived: DerivedFilesOutcome, lastSeq: number, report: SubscriberReport): string[] {
    if (derived.projectionsAt !== null) {
      try {
        this.store.recordSubscriberPosition(PROJECTIONS, derived.projectionsAt);
      } catch (error) {
        report(`projections: ${error instanceof Error ? error.message : String(error)}`, error);
      }
    }
    if (this.state.lastSeq === lastSeq) {
      try {
        saveWriterState(this.store, this.state);
      } catch {
        // Only a cache: the next writer folds the log instead.
      }
    }
    return derived.behind;
  }

  /**
   * Records a finished run (finished-run-record.ts) at the log's end, once `finishWith` left every
   * file level with it; a failure only costs the next re-run the full path.
   */
  recordFinishedRun(record: Omit<FinishedRunRecord, "files" | "boot">, report: (text: string) => void): void {
    try {
      saveFinishedRun(this.store, codeIdentity(), record);
    } catch (error) {
      this.reports.to(report)(`finished-run record: ${error instanceof Error ? error.message : String(error)} (the next re-run reads the log instead)`, error);
    }
  }

  close(): void {
    try {
      this.derived.close();
    } finally {
      this.store.close();
    }
  }
}
