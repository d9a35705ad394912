/**
 * A run directory opened for writing: the event log (with its writer lock), the writer's lean run
 * state (writer-state.ts: its snapshot and the events after it), and the subscribers that follow
 * the log. The mirrors and projections are kept off the jobs' path (derived-files.ts), which
 * first repairs what a crash left behind. Appends are committed in groups (event-store.ts);
 * each committed group is folded into the run state and then handed to the subscribers. `finish`
 * commits what is pending, waits until every derived file reflects the log, records the position
 * the projections reflect and saves the state's snapshot.
 */
import type { Contents } from "../events/content-ref.js";
import type { Subscriber } from "../events/event-bus.js";
import { EventBus } from "../events/event-bus.js";
import { jobStream, RUN_STREAM, type NewEvent, type StoredEvent } from "../events/event-schema.js";
import { EventStore } from "../events/event-store.js";
import { DerivedFiles } from "../events/derived-files.js";
import { PROJECTIONS } from "../events/projection-subscriber.js";
import type { RunState } from "../events/run-state.js";
import { openWriterState, saveWriterState } from "../events/writer-state.js";

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

export class RunSession {
  private constructor(
    readonly runDir: string,
    private readonly store: EventStore,
    readonly state: RunState,
    private readonly derived: DerivedFiles,
    private readonly bus: EventBus,
  ) {}

  /** Opens `runDir` for writing; throws `RunLockedError`, `EventLogWriteError` or `EventLogCorruptError`. */
  static open(runDir: string, runId: string, options: SessionOptions): RunSession {
    const store = EventStore.open(runDir, runId, { command: options.command, groupCommit: true, ...(options.now ? { now: options.now } : {}) });
    try {
      const state = openWriterState(store);
      const derived = new DerivedFiles({ runDir, fresh: state.lastSeq === 0, ...(options.refreshMs !== undefined ? { refreshMs: options.refreshMs } : {}) }, options.report);
      const bus = new EventBus([derived, ...(options.subscribers?.(state) ?? [])], options.report, state.lastSeq);
      store.onCommit(
        (events) => {
          for (const event of events) state.apply(event);
          bus.publish(events);
        },
        // Every job's next append fails with the same error and stops the run; this says when it happened.
        (error) => options.report(`event log: ${error instanceof Error ? error.message : String(error)}`),
      );
      return new RunSession(runDir, store, state, derived, bus);
    } catch (error) {
      store.close();
      throw error;
    }
  }

  /** Records the events of `stream` at `expectedVersion` (with the texts they refer to); the state and subscribers hear of them once committed. */
  append(stream: string, expectedVersion: number, events: readonly NewEvent[], contents?: Contents): StoredEvent[] {
    return this.store.append(stream, expectedVersion, events, contents);
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
    } catch {
      // The group was lost (the appender heard why); the state follows what did commit.
    }
  }

  /**
   * Brings every subscriber level with the log and writes every projection. Returns what is
   * still behind (after reporting why): the files can be rebuilt later with `trace-bench replay`.
   */
  async finish(report: (text: string) => void): Promise<string[]> {
    this.commitPending();
    const lastSeq = this.store.lastSeq();
    const behind = this.bus.settle(lastSeq).filter((name) => name !== this.derived.name);
    // It lets go of its own state once level, before the snapshot below is built, so that the two
    // are not in memory at once (the peak of a big run).
    const derived = this.derived.finish(lastSeq);
    if (derived.projectionsAt !== null) {
      try {
        this.store.recordSubscriberPosition(PROJECTIONS, derived.projectionsAt);
      } catch (error) {
        report(`projections: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (this.state.lastSeq === lastSeq) {
      try {
        saveWriterState(this.store, this.state);
      } catch {
        // Only a cache: the next writer folds the log instead.
      }
    }
    return [...behind, ...derived.behind];
  }

  close(): void {
    try {
      this.derived.close();
    } finally {
      this.store.close();
    }
  }
}
