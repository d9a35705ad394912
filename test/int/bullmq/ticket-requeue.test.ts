/**
 * A ticket of an unfinished job is never stuck in BullMQ's failed set, on a real Redis: BullMQ keeps
 * a failed job's id (for a day here), so adding the ticket again under that id is a no-op, and the
 * coordinator would wait for the job for ever. Whatever failed it (a worker's error, attempts
 * exhausted, stalled more than MAX_STALLED times: each ends in the failed set), the coordinator's
 * `requeue` replaces it and says why it failed; and a worker that gives a ticket back (it is
 * stopping) puts it back in the queue, not in the failed set.
 */
import { Queue, Worker } from "bullmq";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { bullmqCoordinator, bullmqWorker, TICKET_QUEUE } from "../../../adapters/bullmq/bullmq-transport.js";
import { ticketId, type CoordinatorTransport, type JobTicket, type WorkerTransport } from "../../../src/executor/executor-protocol.js";
import { until } from "../../support/processes.js";
import { startRedis, type RedisServer } from "../../support/redis-server.js";

let redis: RedisServer;
let queue: Queue;
const closers: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  redis = await startRedis();
  queue = new Queue(TICKET_QUEUE, { connection: { url: redis.url } });
}, 60_000);
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(async () => {
  await queue?.close();
  await redis?.stop();
});

const ticket = (jobId: string): JobTicket => ({ runId: "requeue-run", jobId, attempt: 1, invocation: 1 });
const stateOf = (t: JobTicket) => queue.getJobState(ticketId(t));

/** Polls the ticket's state until it is `state` or `ms` pass (a deadline that tells a hang from a slow machine). */
async function reaches(t: JobTicket, state: string, ms = 30_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if ((await stateOf(t)) === state) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return (await stateOf(t)) === state;
}

function coordinator(): CoordinatorTransport {
  const transport = bullmqCoordinator(redis.url, () => {});
  closers.push(() => transport.close());
  return transport;
}

it("replaces a failed ticket of an unfinished job, with the reason it failed; a waiting one is left as it is", async () => {
  const transport = coordinator();
  const failing = ticket("fails-once");
  await transport.enqueue(failing);
  const worker = new Worker(TICKET_QUEUE, async () => {
    throw new Error("the worker's own error");
  }, { connection: { url: redis.url } });
  expect(await reaches(failing, "failed")).toBe(true);
  await worker.close();
  // Adding it again alone is what BullMQ ignores.
  await transport.enqueue(failing);
  expect(await stateOf(failing)).toBe("failed");
  expect(await transport.requeue(failing)).toBe("the worker's own error");
  expect(await stateOf(failing)).toBe("waiting");
  // Waiting (or running): nothing to do, the same job stays queued once.
  expect(await transport.requeue(failing)).toBeNull();
  expect(await queue.getWaitingCount()).toBe(1);
  // Lost (Redis came back empty): queued again.
  await queue.obliterate({ force: true });
  expect(await transport.requeue(failing)).toBeNull();
  expect(await stateOf(failing)).toBe("waiting");
  await queue.obliterate({ force: true });
}, 60_000);

it("a ticket a stopping worker gives back goes back to the queue, not to the failed set, and is taken again", async () => {
  const transport = coordinator();
  const given = ticket("given-back");
  await transport.enqueue(given);
  const said: string[] = [];
  const worker: WorkerTransport = bullmqWorker({ url: redis.url, say: (text) => said.push(text) });
  closers.push(() => worker.close());
  let takes = 0;
  await worker.take(1, async () => {
    takes += 1;
    return takes === 1 ? { kind: "returned", why: "the worker is stopping" } : { kind: "ran", ended: "ok" };
  });
  expect(await until(() => takes >= 2, 30_000, 50), said.join("\n")).toBe(true);
  // Ran the second time: completed and removed, never failed.
  expect(await reaches(given, "unknown")).toBe(true);
  expect(await queue.getFailedCount()).toBe(0);
  expect(said.join("\n")).toContain("given back: the worker is stopping");
}, 60_000);
