/** mapBounded: input order, the bound, the first error, the signal. */
import { describe, expect, it } from "vitest";
import { mapBounded } from "../../../src/opt/bounded.js";

const later = <A>(ms: number, value: A) => new Promise<A>((resolve) => setTimeout(() => resolve(value), ms));

describe("mapBounded", () => {
  it("returns results in input order whatever order they complete in, never more than the bound at once", async () => {
    let running = 0;
    let most = 0;
    const results = await mapBounded(
      [30, 5, 20, 1, 10],
      async (ms, i) => {
        running += 1;
        most = Math.max(most, running);
        await later(ms, null);
        running -= 1;
        return `${i}:${ms}`;
      },
      2,
    );
    expect(results).toEqual(["0:30", "1:5", "2:20", "3:1", "4:10"]);
    expect(most).toBe(2);
  });

  it("runs one at a time with a bound of 1 (or less), and gives [] for no items", async () => {
    const order: number[] = [];
    await mapBounded([3, 1, 2], async (n) => {
      order.push(n);
      await later(n, null);
      order.push(-n);
    }, 0);
    expect(order).toEqual([3, -3, 1, -1, 2, -2]);
    expect(await mapBounded([], async () => 1, 4)).toEqual([]);
  });

  it("rejects with the first error and starts nothing after it", async () => {
    const started: number[] = [];
    const outcome = mapBounded(
      [1, 2, 3, 4],
      async (n) => {
        started.push(n);
        if (n === 2) throw new Error("two failed");
        await later(5, null);
        return n;
      },
      1,
    );
    await expect(outcome).rejects.toThrow("two failed");
    await later(20, null);
    expect(started).toEqual([1, 2]);
  });

  it("a synchronous throw of the work rejects too", async () => {
    await expect(mapBounded([1], () => { throw new Error("sync"); }, 1)).rejects.toThrow("sync");
  });

  it("rejects with the signal's reason when it is aborted, before or during the work", async () => {
    const before = new AbortController();
    before.abort(new Error("stopped before"));
    await expect(mapBounded([1], async () => 1, 1, before.signal)).rejects.toThrow("stopped before");
    const during = new AbortController();
    const started: number[] = [];
    const outcome = mapBounded([1, 2, 3], async (n) => {
      started.push(n);
      await later(50, null);
      return n;
    }, 1, during.signal);
    setTimeout(() => during.abort(new Error("stopped during")), 10);
    await expect(outcome).rejects.toThrow("stopped during");
    await later(80, null);
    expect(started).toEqual([1]);
  });
});
