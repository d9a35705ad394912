/**
 * A run directory opened for writing: the event log (with its writer lock), the run state folded
 * from it, and the subscribers that derive files from it. Opening brings the mirrors and the
 * projections level with the log (repairing what a crash left behind); `append` commits and then
 * notifies; `finish` writes every projection and records the position it reflects.
 */
import type { Contents } from "../events/content-ref.js";
import type { Subscriber } from "../events/event-bus.js";
import { EventBus } from "../events/event-bus.js";
import { jobStream, RUN_STREAM, type NewEvent, type StoredEvent } from "../events/event-schema.js";
import { EventStore } from "../events/event-store.js";
import { MirrorWriter } from "../events/mirror-writer.js";
import { ProjectionSubscriber } from "../events/projection-subscriber.js";
import { ProjectionWriter } from "../events/projection-writer.js";
import { RunState } from "../events/run-state.js";

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
    private readonly projections: ProjectionSubscriber,
    private readonly bus: EventBus,
    private readonly mirrors: MirrorWriter,
  ) {}

  /** Opens `runDir` for writing; throws `RunLockedError`, `EventLogWriteError` or `EventLogCorruptError`. */
  static open(runDir: string, runId: string, options: SessionOptions): RunSession {
    const store = EventStore.open(runDir, runId, { command: options.command, ...(options.now ? { now: options.now } : {}) });
    try {
      // One read of the log: the state folds each event as it is decoded; the mirrors are then
      // checked against the same rows.
      const state = new RunState();
      const rows = store.scan((event) => state.apply(event));
      const mirrors = new MirrorWriter(runDir, store);
      mirrors.catchUpFrom(rows);
      const projections = new ProjectionSubscriber(state, new ProjectionWriter(runDir, state.lastSeq === 0), store, options.refreshMs);
      if (state.lastSeq > 0 && !projections.isCurrent()) projections.catchUp();
      const bus = new EventBus([mirrors, projections, ...(options.subscribers?.(state) ?? [])], options.report, state.lastSeq);
      return new RunSession(runDir, store, state, projections, bus, mirrors);
    } catch (error) {
      store.close();
      throw error;
    }
  }

  /** Commits the events of `stream` at `expectedVersion` (with the texts they refer to), then notifies the subscribers. */
  append(stream: string, expectedVersion: number, events: readonly NewEvent[], contents?: Contents): StoredEvent[] {
    const stored = this.store.append(stream, expectedVersion, events, contents);
    this.bus.publish(stored);
    return stored;
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

  /**
   * Brings every subscriber level with the log and writes every projection. Returns what is
   * still behind (after reporting why): the files can be rebuilt later with `trace-bench replay`.
   */
  finish(report: (text: string) => void): string[] {
    const behind = this.bus.settle(this.store.lastSeq());
    try {
      this.projections.catchUp();
    } catch (error) {
      report(`projections: ${error instanceof Error ? error.message : String(error)}`);
      if (!behind.includes(this.projections.name)) behind.push(this.projections.name);
    }
    return behind;
  }

  close(): void {
    this.mirrors.close();
    this.store.close();
  }
}
