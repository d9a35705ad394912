/**
 * Commit, then notify. After the log commits, the bus hands the new events to each subscriber
 * (mirrors, projections, the console, later the dashboard). A subscriber that throws is reported
 * and marked behind; the next time, and when the run settles, it catches up from the log itself.
 * Nothing a subscriber does can change what was committed or become a job's outcome.
 */
import type { StoredEvent } from "./event-schema.js";

export interface Subscriber {
  readonly name: string;
  /** Newly committed events, the ones right after what this subscriber has seen. */
  handle(events: readonly StoredEvent[]): void;
  /** Brings this subscriber level with everything committed, reading the log (after a failure, or a gap). */
  catchUp(): void;
}

export class EventBus {
  /** The last seq each subscriber has seen. */
  private readonly positions = new Map<string, number>();
  private readonly behind = new Set<string>();

  constructor(
    private readonly subscribers: readonly Subscriber[],
    /** Where a subscriber's failure is told (stderr), with the error behind it. */
    private readonly report: (text: string, cause?: unknown) => void,
    position = 0,
  ) {
    for (const s of subscribers) this.positions.set(s.name, position);
  }

  publish(events: readonly StoredEvent[]): void {
    if (events.length === 0) return;
    const first = events[0]!.seq;
    const last = events.at(-1)!.seq;
    for (const subscriber of this.subscribers) {
      const seen = this.positions.get(subscriber.name)!;
      if (seen >= last) continue;
      const gap = this.behind.has(subscriber.name) || seen < first - 1;
      this.deliver(subscriber, last, () => (gap ? subscriber.catchUp() : subscriber.handle(seen < first ? events : events.filter((e) => e.seq > seen))));
    }
  }

  /** Marks a subscriber behind (it failed outside `publish`): the next publish or `settle` retries it. */
  markBehind(name: string): void {
    this.behind.add(name);
  }

  /** Retries every subscriber that is behind; returns the names of those still behind. */
  settle(lastSeq: number): string[] {
    for (const subscriber of this.subscribers) {
      if (!this.behind.has(subscriber.name) && this.positions.get(subscriber.name)! >= lastSeq) continue;
      this.deliver(subscriber, lastSeq, () => subscriber.catchUp());
    }
    return [...this.behind];
  }

  private deliver(subscriber: Subscriber, upTo: number, work: () => void): void {
    try {
      work();
      this.positions.set(subscriber.name, upTo);
      if (this.behind.delete(subscriber.name)) this.report(`${subscriber.name}: caught up with the log`);
    } catch (error) {
      if (!this.behind.has(subscriber.name)) {
        this.report(`${subscriber.name}: ${error instanceof Error ? error.message : String(error)} (the log is intact; retrying)`, error);
      }
      this.behind.add(subscriber.name);
    }
  }
}
