/**
 * The executor's transport on BullMQ 6 and Redis (Debian's redis-server). One queue of tickets
 * shared by every worker (`trace-bench-jobs`); one queue per run for the workers' requests to its
 * coordinator (claims and event batches), which the coordinator alone processes, its answer being
 * the BullMQ job's return value; cancel notices on a Redis pub/sub channel.
 *
 * Lock values (why): a worker renews the lock of each ticket it runs every LOCK_MS/2; a worker that
 * dies (kill -9, a lost machine) stops renewing, and the stalled check, run by every live worker
 * each STALLED_CHECK_MS, puts its ticket back in the queue once the lock lapsed: another worker
 * takes it within LOCK_MS + STALLED_CHECK_MS (about 7 s). CPU-heavy work runs in child processes
 * (the python and JavaScript pools), so a worker's event loop stays free to renew. A job whose
 * worker dies MAX_STALLED times in a row is failed (it kills its workers).
 *
 * Redis lost: ioredis reconnects with backoff (at most 2 s between tries); requests wait and are
 * sent again (a batch under the same id: committed once). The line said on loss and return is the
 * `say` callback's.
 */
import { randomUUID } from "node:crypto";
import { Queue, QueueEvents, Worker, type Job } from "bullmq";
import { Redis } from "ioredis";
import { requestId, ticketId, type CancelNotice, type CoordinatorInbox, type CoordinatorTransport, type JobTicket, type WorkerRequest, type WorkerTransport } from "../../src/executor/executor-protocol.js";

export const TICKET_QUEUE = "trace-bench-jobs";
const CANCEL_CHANNEL = "trace-bench-cancel";
export const LOCK_MS = 5_000;
export const STALLED_CHECK_MS = 2_000;
export const MAX_STALLED = 3;
/** How long a request waits for its answer before it is sent again (Redis may have restarted, losing it). */
const REQUEST_WAIT_MS = 5_000;

const inboxQueue = (runId: string) => `trace-bench-inbox-${runId}`;

const connectionOf = (url: string) => ({ url, maxRetriesPerRequest: null, retryStrategy: (times: number) => Math.min(100 * times, 2_000) });

/** One client watched for the connection's loss and return; says each once. */
function watchedClient(url: string, say: (text: string) => void, onBack: () => void): Redis & { closing: boolean } {
  const client = Object.assign(new Redis(url, { maxRetriesPerRequest: null, retryStrategy: (times: number) => Math.min(100 * times, 2_000) }), { closing: false });
  let lost = false;
  let everReady = false;
  const onLoss = (why: string) => {
    if (client.closing || !everReady) return;
    if (!lost) say(`Redis at ${url}: connection lost (${why}); reconnecting`);
    lost = true;
  };
  client.on("error", (error: Error) => onLoss(error.message));
  client.on("close", () => onLoss("closed"));
  client.on("ready", () => {
    everReady = true;
    if (!lost) return;
    lost = false;
    say(`Redis at ${url}: reconnected`);
    onBack();
  });
  return client;
}

/** Resolves once `url` answers PING, or rejects with a one-line reason after `timeoutMs`. */
export async function checkRedis(url: string, timeoutMs = 5_000): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 0, lazyConnect: true, connectTimeout: timeoutMs, retryStrategy: () => null });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.ping();
  } finally {
    client.disconnect();
  }
}

export function bullmqCoordinator(url: string, say: (text: string) => void): CoordinatorTransport {
  const connection = connectionOf(url);
  const tickets = new Queue(TICKET_QUEUE, { connection });
  tickets.on("error", () => {});
  const listeners: (() => void)[] = [];
  const publisher = watchedClient(url, say, () => listeners.forEach((l) => l()));
  let served: Worker | null = null;
  return {
    async serve(runId: string, inbox: CoordinatorInbox) {
      const worker = new Worker(
        inboxQueue(runId),
        async (job: Job<WorkerRequest>) => (job.data.kind === "claim" ? inbox.claim(job.data.ticket) : inbox.commit(job.data.batch)),
        { connection, concurrency: 16, autorun: false },
      );
      worker.on("error", () => {});
      served = worker;
      void worker.run();
      await worker.waitUntilReady();
    },
    async enqueue(ticket: JobTicket) {
      await tickets.add("job", ticket, { jobId: ticketId(ticket), removeOnComplete: true, removeOnFail: { age: 24 * 3600 } });
    },
    async withdraw(ticket: JobTicket) {
      const job = await tickets.getJob(ticketId(ticket));
      if (job === undefined || job === null) return false;
      const state = await job.getState();
      if (state !== "waiting" && state !== "delayed" && state !== "prioritized") return false;
      try {
        await job.remove();
        return true;
      } catch {
        return false; // a worker took it meanwhile
      }
    },
    async cancel(notice: CancelNotice) {
      await publisher.publish(CANCEL_CHANNEL, JSON.stringify(notice));
    },
    onReconnect(listener: () => void) {
      listeners.push(listener);
    },
    async close() {
      publisher.closing = true;
      await served?.close(true);
      await tickets.close();
      publisher.disconnect();
    },
  };
}

export interface WorkerTransportOptions {
  readonly url: string;
  readonly say: (text: string) => void;
}

export function bullmqWorker({ url, say }: WorkerTransportOptions): WorkerTransport {
  const connection = connectionOf(url);
  const inboxes = new Map<string, { queue: Queue; events: QueueEvents }>();
  const cancelListeners: ((notice: CancelNotice) => void)[] = [];
  const subscriber = watchedClient(url, say, () => {});
  void subscriber.subscribe(CANCEL_CHANNEL).catch(() => {});
  subscriber.on("message", (_channel: string, message: string) => {
    let notice: CancelNotice;
    try {
      notice = JSON.parse(message) as CancelNotice;
    } catch {
      return;
    }
    for (const l of cancelListeners) l(notice);
  });
  let worker: Worker | null = null;
  let closed = false;

  const inboxOf = (runId: string) => {
    let found = inboxes.get(runId);
    if (found === undefined) {
      const queue = new Queue(inboxQueue(runId), { connection });
      const events = new QueueEvents(inboxQueue(runId), { connection });
      queue.on("error", () => {});
      events.on("error", () => {});
      found = { queue, events };
      inboxes.set(runId, found);
    }
    return found;
  };

  return {
    async request<A>(request: WorkerRequest): Promise<A> {
      const runId = request.kind === "claim" ? request.ticket.runId : request.batch.runId;
      const { queue, events } = inboxOf(runId);
      await events.waitUntilReady();
      const id = requestId(request);
      for (let tries = 1; ; tries += 1) {
        if (closed) throw new Error("the worker is stopping");
        // Added once under its id: sent again (Redis restarted, no answer yet) it is the same request.
        const job = await queue.add(request.kind, request, { jobId: id, removeOnComplete: { age: 3600 }, removeOnFail: { age: 3600 } });
        try {
          return (await job.waitUntilFinished(events, REQUEST_WAIT_MS)) as A;
        } catch (error) {
          const text = error instanceof Error ? error.message : String(error);
          if (!text.includes("timed out")) throw new Error(`the coordinator could not answer ${id}: ${text}`);
          // The answer may have come while the event stream was down (a Redis restart): read it from the job itself.
          const answered = await queue.getJob(id);
          if (answered !== undefined && answered !== null && (await answered.isCompleted())) return answered.returnvalue as A;
          // No answer yet (the coordinator is busy, stopped, or Redis lost the request): ask again.
          if (tries === 3) say(`no answer from the coordinator of run ${runId} yet (is 'trace-bench run' running?); still waiting`);
        }
      }
    },
    async take(concurrency: number, run: (ticket: JobTicket) => Promise<string>) {
      worker = new Worker(TICKET_QUEUE, async (job: Job<JobTicket>) => run(job.data), {
        connection,
        concurrency,
        lockDuration: LOCK_MS,
        stalledInterval: STALLED_CHECK_MS,
        maxStalledCount: MAX_STALLED,
        name: `trace-bench-worker-${randomUUID().slice(0, 8)}`,
      });
      worker.on("error", () => {});
      worker.on("failed", (job, error) => say(`ticket ${job?.id ?? "?"} failed: ${error.message}`));
      await worker.waitUntilReady();
    },
    onCancel(listener: (notice: CancelNotice) => void) {
      cancelListeners.push(listener);
    },
    async close() {
      closed = true;
      subscriber.closing = true;
      await worker?.close();
      for (const { queue, events } of inboxes.values()) {
        await events.close();
        await queue.close();
      }
      subscriber.disconnect();
    },
  };
}
