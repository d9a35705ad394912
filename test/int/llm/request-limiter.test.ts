import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { LlmError } from "../../../src/llm/llm-error.js";
import { createRequestLimiter, createRequestLimiters } from "../../../src/llm/request-limiter.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("request limiter", () => {
  it("never has more than maxConcurrency requests in flight, and uses all of them", async () => {
    const limiter = createRequestLimiter({ maxConcurrency: 3 });
    let now = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const release = await limiter.acquire();
        now += 1;
        peak = Math.max(peak, now);
        await pause((i * 7) % 11);
        now -= 1;
        release();
      }),
    );
    expect(peak).toBe(3);
    expect(limiter.inFlight).toBe(0);
    expect(limiter.waiting).toBe(0);
  });

  it("grants slots first come, first served", async () => {
    const limiter = createRequestLimiter({ maxConcurrency: 1 });
    const order: number[] = [];
    await Promise.all(
      [0, 1, 2, 3, 4].map(async (i) => {
        const release = await limiter.acquire();
        order.push(i);
        await pause(1);
        release();
      }),
    );
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it("gives a slot back once however often release is called", async () => {
    const limiter = createRequestLimiter({ maxConcurrency: 1 });
    const release = await limiter.acquire();
    release();
    release();
    const a = await limiter.acquire();
    const b = limiter.acquire();
    expect(limiter.inFlight).toBe(1);
    expect(limiter.waiting).toBe(1);
    a();
    (await b)();
    expect(limiter.inFlight).toBe(0);
  });

  it("spaces requests to requestsPerMinute over a sliding window: the 4th of 3/window starts a window after the 1st", async () => {
    const windowMs = 300;
    const limiter = createRequestLimiter({ requestsPerMinute: 3, windowMs });
    const granted: number[] = [];
    const all = Array.from({ length: 7 }, () => limiter.acquire().then((release) => (granted.push(performance.now()), release())));
    // The first three start at once, the other four wait for the window to move.
    expect(limiter.inFlight).toBe(3);
    expect(limiter.waiting).toBe(4);
    await Promise.all(all);
    for (let i = 3; i < granted.length; i += 1) expect(granted[i]! - granted[i - 3]!).toBeGreaterThanOrEqual(windowMs - 2);
  });

  it("rejects a request waiting for a concurrency slot when its signal aborts, and it takes no slot", async () => {
    const limiter = createRequestLimiter({ maxConcurrency: 1 });
    const held = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    expect(limiter.waiting).toBe(1);
    controller.abort();
    const error = await waiting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).kind).toBe("aborted");
    expect(limiter.waiting).toBe(0);
    held();
    expect(limiter.inFlight).toBe(0);
  });

  it("rejects a request waiting for the rate window when its signal aborts, long before the window ends", async () => {
    const limiter = createRequestLimiter({ requestsPerMinute: 1 });
    (await limiter.acquire())();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    setTimeout(() => controller.abort(), 20);
    await expect(waiting).rejects.toMatchObject({ kind: "aborted" });
    expect(limiter.waiting).toBe(0);
  });

  it("rejects at once for a signal that has already aborted", async () => {
    const limiter = createRequestLimiter({ maxConcurrency: 1 });
    await expect(limiter.acquire(AbortSignal.abort())).rejects.toMatchObject({ kind: "aborted" });
    expect(limiter.inFlight).toBe(0);
  });

  it("removes its abort listener from a signal once the slot is granted", async () => {
    const limiter = createRequestLimiter({ maxConcurrency: 1 });
    const controller = new AbortController();
    const held = await limiter.acquire(controller.signal);
    const next = limiter.acquire(controller.signal);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    held();
    (await next)();
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("refuses limits that are not positive integers", () => {
    expect(() => createRequestLimiter({ maxConcurrency: 0 })).toThrow(RangeError);
    expect(() => createRequestLimiter({ requestsPerMinute: 1.5 })).toThrow(/requestsPerMinute/);
  });

  it("keeps one limiter per model", () => {
    const limiters = createRequestLimiters((model) => ({ maxConcurrency: model === "a" ? 1 : 2 }));
    expect(limiters.forModel("a")).toBe(limiters.forModel("a"));
    expect(limiters.forModel("a")).not.toBe(limiters.forModel("b"));
  });
});
