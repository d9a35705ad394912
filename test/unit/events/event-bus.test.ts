import { describe, expect, it } from "vitest";
import { EventBus, type Subscriber } from "../../../src/events/event-bus.js";
import type { StoredEvent } from "../../../src/events/event-schema.js";

const events = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ({ seq: from + i }) as StoredEvent);

/** A subscriber that records what it was handed, and fails while `failing` is set. */
function recording(name: string) {
  const seen: number[] = [];
  let catchUps = 0;
  const subscriber = {
    name,
    failing: false as boolean,
    handle(batch: readonly StoredEvent[]) {
      if (subscriber.failing) throw new Error(`${name} cannot write`);
      seen.push(...batch.map((e) => e.seq));
    },
    catchUp() {
      if (subscriber.failing) throw new Error(`${name} still cannot write`);
      catchUps += 1;
    },
  } satisfies Subscriber & { failing: boolean };
  return { subscriber, seen, catchUps: () => catchUps };
}

describe("EventBus: commit, then notify", () => {
  it("hands each subscriber the events after what it has seen", () => {
    const a = recording("a");
    const bus = new EventBus([a.subscriber], () => {}, 2);
    bus.publish(events(1, 4)); // 1 and 2 were seen before the bus started
    bus.publish(events(5, 5));
    expect(a.seen).toEqual([3, 4, 5]);
  });

  it("a failing subscriber is reported once, never stops the others, and catches up from the log later", () => {
    const reports: string[] = [];
    const flaky = recording("projections");
    const mirrors = recording("mirrors");
    const bus = new EventBus([flaky.subscriber, mirrors.subscriber], (text) => reports.push(text));
    flaky.subscriber.failing = true;
    expect(() => bus.publish(events(1, 2))).not.toThrow();
    bus.publish(events(3, 3));
    expect(mirrors.seen).toEqual([1, 2, 3]);
    expect(reports).toEqual(["projections: projections cannot write (the log is intact; retrying)"]);
    expect(bus.settle(3)).toEqual(["projections"]);

    flaky.subscriber.failing = false;
    bus.publish(events(4, 4));
    expect(flaky.catchUps()).toBe(1); // read the log instead of taking the batch it missed the start of
    expect(flaky.seen).toEqual([]);
    expect(reports.at(-1)).toBe("projections: caught up with the log");
    bus.publish(events(5, 5));
    expect(flaky.seen).toEqual([5]);
    expect(bus.settle(5)).toEqual([]);
  });
});
