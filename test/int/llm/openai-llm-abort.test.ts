/** Per-attempt timeouts and the caller's abort signal: prompt rejection, the HTTP request really closed, no listener left behind. */
import { getEventListeners } from "node:events";
import { describe, expect, it, vi } from "vitest";
import { createOpenAiLlm, type OpenAiLlmOptions } from "../../../adapters/llm/openai-llm.js";
import { LlmError } from "../../../src/llm/llm-error.js";
import { fakeOpenAiServers, type FakeOpenAiServer } from "../../support/fake-openai-server.js";

const server = fakeOpenAiServers();

const messages = [{ role: "user" as const, content: "hello" }];
const fast = (baseURL: string, more: Partial<OpenAiLlmOptions> = {}) => createOpenAiLlm({ model: "m", apiKey: "k", baseURL, backoffBaseMs: 1, backoffMaxMs: 5, ...more });
/** Far longer than any bound below: a call that waited for it has not been aborted. */
const SLOW = { reply: "too late", delayMs: 20_000 };
/**
 * The per-attempt timeouts below: long enough that on a loaded machine a prompt reply arrives, and
 * each attempt's request reaches the server (which records it once it has read the body), before
 * they run out. At 200 ms, and once at 1000 ms under a load of 20 on two cores, a starved test
 * process timed out before the server had read its request.
 */
const TIMEOUT_MS = 1000;
const TIMEOUT_SEEN_MS = 2500;

async function failure(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}

/** Rejection time of `call` after `abort` runs, once the server has `requests` requests. */
async function abortAfter(s: FakeOpenAiServer, requests: number, controller: AbortController, call: Promise<unknown>, reason?: unknown) {
  const settled = failure(call);
  await vi.waitFor(() => expect(s.received.length).toBe(requests), { timeout: 5000, interval: 5 });
  const started = performance.now();
  controller.abort(reason);
  const error = await settled;
  return { error, ms: performance.now() - started };
}

describe("timeouts", () => {
  it("gives up on a reply slower than timeoutMs with kind timeout, and hangs up on the server each time", async () => {
    const s = await server([], { fallback: SLOW });
    const error = await failure(fast(s.baseURL, { timeoutMs: TIMEOUT_SEEN_MS, maxRetries: 1 }).complete({ messages }));
    expect(error).toMatchObject({ kind: "timeout", httpStatus: null, retries: 1, message: "timeout after 2.5 s (1 retry)" });
    expect(s.received).toHaveLength(2);
    await vi.waitFor(() => expect(s.received.map((r) => r.aborted)).toEqual([true, true]), { timeout: 5000 });
  });

  it("covers the reply's body too: a reply that stalls after its headers times out", async () => {
    const s = await server([{ reply: "half", bodyDelayMs: 20_000 }, "whole"]);
    expect(await fast(s.baseURL, { timeoutMs: TIMEOUT_MS }).complete({ messages })).toMatchObject({ content: "whole", retries: 1 });
    await vi.waitFor(() => expect(s.received[0]!.aborted).toBe(true), { timeout: 5000 });
  });

  it("retries a timeout and takes the next, prompt reply", async () => {
    const s = await server([SLOW, "in time"]);
    expect(await fast(s.baseURL, { timeoutMs: TIMEOUT_MS }).complete({ messages })).toMatchObject({ content: "in time", retries: 1 });
  });
});

describe("abort", () => {
  it("rejects promptly with kind aborted mid-request, and the server sees the connection closed", async () => {
    const s = await server([SLOW]);
    const controller = new AbortController();
    const { error, ms } = await abortAfter(s, 1, controller, fast(s.baseURL).complete({ messages }, controller.signal));
    expect(error).toMatchObject({ kind: "aborted", retries: 0, message: "aborted" });
    expect(ms).toBeLessThan(5000);
    await vi.waitFor(() => expect(s.received[0]!.aborted).toBe(true), { timeout: 5000 });
  });

  it("rejects promptly while sleeping in backoff, without another request", async () => {
    const s = await server([{ status: 429, message: "later", headers: { "retry-after": "30" } }, "never asked"]);
    const controller = new AbortController();
    const { error, ms } = await abortAfter(s, 1, controller, fast(s.baseURL).complete({ messages }, controller.signal), "job timeout");
    expect(error).toMatchObject({ kind: "aborted", retries: 0, message: "aborted: job timeout" });
    expect(ms).toBeLessThan(5000);
    expect(s.received).toHaveLength(1);
  });

  it("counts the retries made before the abort", async () => {
    const s = await server([{ status: 500, message: "a" }, { status: 500, message: "b" }, SLOW]);
    const controller = new AbortController();
    const { error } = await abortAfter(s, 3, controller, fast(s.baseURL).complete({ messages }, controller.signal));
    expect(error).toMatchObject({ kind: "aborted", retries: 2, message: "aborted (2 retries)" });
  });

  it("sends nothing for a signal that has already aborted", async () => {
    const s = await server(["unused"]);
    expect(await failure(fast(s.baseURL).complete({ messages }, AbortSignal.abort()))).toMatchObject({ kind: "aborted" });
    expect(s.received).toHaveLength(0);
  });

  it("leaves no listener on a long-lived signal after 50 calls (answered, retried, failed), and no MaxListenersExceededWarning", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const script = Array.from({ length: 50 }, (_, i) => (i % 10 === 3 ? { status: 500, message: "flaky" } : i % 10 === 7 ? { status: 400, message: "bad" } : `reply ${i}`));
      const s = await server(script, { fallback: "ok" });
      const llm = fast(s.baseURL);
      const job = new AbortController();
      let answered = 0;
      for (let i = 0; i < 50; i += 1) {
        await llm.complete({ messages }, job.signal).then(
          () => (answered += 1),
          (e: unknown) => expect(e).toMatchObject({ kind: "bad_request" }),
        );
      }
      expect(answered).toBe(45);
      expect(getEventListeners(job.signal, "abort")).toHaveLength(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });
});
