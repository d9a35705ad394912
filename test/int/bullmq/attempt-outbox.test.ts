/**
 * A worker's outbox for one attempt: what it sends the coordinator, and when. A short attempt's
 * events go in one batch (one request, one commit at the coordinator); whatever waits on the log
 * (an LLM request's `LlmCallStarted`, the run budget's admission, the attempt's end) leaves at once;
 * events nobody waits on still leave on their own. The coordinator here is a scripted `send` that
 * holds each batch until the test answers it.
 */
import * as Either from "effect/Either";
import { describe, expect, it } from "vitest";
import { AttemptOutbox } from "../../../src/engine/executor/attempt-outbox.js";
import type { BatchAck, EventBatch } from "../../../src/executor/executor-protocol.js";
import { jobStream, type NewEvent } from "../../../src/events/event-schema.js";

const JOB = "abc123def456";
const STREAM = jobStream(JOB);

/** An outbox whose batches wait in `sent` until `answer` (ok by default) is called. */
function scripted(lingerMs?: number) {
  const sent: { batch: EventBatch; answer: (ack?: BatchAck) => void }[] = [];
  let arrived: (() => void) | null = null;
  const outbox = new AttemptOutbox({
    runId: "r",
    jobId: JOB,
    attempt: 1,
    invocation: 1,
    delivery: "d",
    version: 0,
    replies: new Map(),
    send: (batch) =>
      new Promise<BatchAck>((resolve) => {
        sent.push({ batch, answer: (ack = { ok: true, admitted: (batch.admissions ?? []).map(() => null) }) => resolve(ack) });
        arrived?.();
      }),
    onRefused: () => {},
    ...(lingerMs !== undefined ? { lingerMs } : {}),
  });
  const log = outbox.runLog();
  let version = 0;
  const append = (...events: NewEvent[]) => {
    expect(Either.isRight(log.append(STREAM, version, events))).toBe(true);
    version += events.length;
  };
  /** Resolves once `n` batches were sent in all. */
  const sentCount = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (sent.length >= n ? resolve() : (arrived = check));
      check();
    });
  return { outbox, sent, append, sentCount };
}

const event = (type: string, data: Record<string, unknown> = { attempt: 1 }): NewEvent => ({ type, job_id: JOB, data }) as unknown as NewEvent;
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("a worker's attempt outbox", () => {
  it("sends a short attempt's events, appended over several turns, in one batch that leaves with its JobFinished", async () => {
    // Held for as long as it takes (a busy machine may pause the test for longer than the default).
    const { sent, append, sentCount } = scripted(3_600_000);
    append(event("JobQueued", { attempt: 1, invocation: 1 }), event("JobTransitioned"));
    await turn();
    append(event("JobTransitioned"));
    await turn();
    expect(sent).toHaveLength(0);
    append(event("JobTransitioned"), event("JobFinished"));
    await sentCount(1);
    expect(sent[0]!.batch.events.map((e) => e.type)).toEqual(["JobQueued", "JobTransitioned", "JobTransitioned", "JobTransitioned", "JobFinished"]);
    expect(sent[0]!.batch).toMatchObject({ seq: 1, expectedVersion: 0 });
  });

  it("sends at once what a request waits on, without waiting for the batch before it to be answered; answers are taken in order", async () => {
    const { outbox, sent, append, sentCount } = scripted();
    append(event("JobQueued", { attempt: 1, invocation: 1 }), event("JobTransitioned"));
    append(event("LlmCallStarted"));
    let committed = false;
    const flushed = outbox.flushed().then(() => (committed = true));
    await sentCount(1);
    expect(sent[0]!.batch.events.map((e) => e.type)).toEqual(["JobQueued", "JobTransitioned", "LlmCallStarted"]);
    // While the first is on its way, an admission leaves in the next batch, which follows the first's events.
    let verdict: unknown = "none yet";
    const admitted = outbox.judge().admit({ tokens: 10, cost: 0 }).then((v) => (verdict = v));
    await sentCount(2);
    expect(sent[1]!.batch).toMatchObject({ seq: 2, expectedVersion: 3, events: [], admissions: [{ tokens: 10, cost: 0 }] });
    // The second answer first: nothing is settled until the first is in.
    sent[1]!.answer();
    await turn();
    expect([committed, verdict]).toEqual([false, "none yet"]);
    sent[0]!.answer();
    await Promise.all([flushed, admitted]);
    expect([committed, verdict]).toEqual([true, null]);
  });

  it("a refused batch refuses the attempt: what waits on the batches after it is refused too, and nothing more is sent", async () => {
    const { outbox, sent, append, sentCount } = scripted();
    append(event("JobQueued", { attempt: 1, invocation: 1 }), event("LlmCallStarted"));
    await sentCount(1);
    const admitted = outbox.judge().admit({ tokens: 10, cost: 0 });
    await sentCount(2);
    sent[0]!.answer({ ok: false, reason: "superseded: attempt 2 runs now" });
    sent[1]!.answer({ ok: false, reason: "batch 2 arrived before batch 1" });
    await expect(admitted).rejects.toThrow("superseded: attempt 2 runs now");
    expect(outbox.refusal).toBe("superseded: attempt 2 runs now");
    await outbox.settled();
    await expect(outbox.flushed()).rejects.toThrow("superseded");
    expect(sent).toHaveLength(2);
  });

  it("sends events nobody waits on after a short while, and `settled` sends what is left at the attempt's end", async () => {
    const { outbox, sent, append, sentCount } = scripted();
    append(event("JobQueued", { attempt: 1, invocation: 1 }), event("JobTransitioned"));
    await sentCount(1);
    expect(sent[0]!.batch.events).toHaveLength(2);
    append(event("IterationCompleted"));
    sent[0]!.answer();
    const settled = outbox.settled();
    await sentCount(2);
    expect(sent[1]!.batch).toMatchObject({ seq: 2, expectedVersion: 2 });
    sent[1]!.answer();
    await settled;
  });
});
