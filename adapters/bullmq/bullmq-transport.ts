/**
 * The executor's transport on BullMQ 6 and Redis (Debian's redis-server). One queue of tickets
 * shared by every worker (`trace-bench-jobs`), where BullMQ's locks and stalled checks give
 * at-least-once delivery; cancel notices on a Redis pub/sub channel.
 *
 * The workers' requests to a run's coordinator (claims, event batches) are entries of a Redis
 * stream per run, which the coordinator alone reads (XREAD BLOCK, many entries a read); each answer
 * is an entry of the asking worker's own reply stream, which that worker reads the same way. One
 * XADD each way, pipelined: a BullMQ job per request, answered through QueueEvents, cost about 40
 * Redis commands and several Lua scripts (docs/performance.md, row 14). A request unanswered after
 * REQUEST_WAIT_MS, or pending when the connection came back, is sent again under the same id: a
 * claim is answered again from the coordinator's memory of it, a batch by its idempotency key.
 *
 * Lock values (why): a worker renews the lock of each ticket it runs every LOCK_MS/2; a worker that
 * dies (kill -9, a lost machine) stops renewing, and the stalled check, run by every live worker
 * each STALLED_CHECK_MS, puts its ticket back in the queue once the lock lapsed: another worker
 * takes it within LOCK_MS + STALLED_CHECK_MS (about 7 s). CPU-heavy work runs in child processes
 * (the python and JavaScript pools), so a worker's event loop stays free to renew. A job whose
 * worker dies MAX_STALLED times in a row is failed (it kills its workers).
 *
 * Redis lost: ioredis reconnects with backoff (at most 2 s between tries); requests wait and are
 * sent again as soon as it is back (a batch under the same id: committed once). The line said on
 * loss and return is the `say` callback's.
 */
import { randomUUID } from "node:crypto";
import { Queue, WaitingError, Worker, type Job } from "bullmq";
import { Redis } from "ioredis";
import { requestId, ticketId, type CancelNotice, type CoordinatorInbox, type CoordinatorTransport, type EventBatch, type JobTicket, type TicketOutcome, type WorkerRequest, type WorkerTransport } from "../../src/executor/executor-protocol.js";

export const TICKET_QUEUE = "trace-bench-jobs";
const CANCEL_CHANNEL = "trace-bench-cancel";
export const LOCK_MS = 5_000;
export const STALLED_CHECK_MS = 2_000;
export const MAX_STALLED = 3;
/** How soon a worker tries again to fetch or complete a ticket after Redis failed it (a restart): it is back within seconds. */
export const RUN_RETRY_MS = 500;
/**
 * How long a stopping worker waits for its running tickets to end (their cancellations recorded by
 * the coordinator) before it leaves them: a coordinator that is gone answers nothing, and their
 * lapsed locks put them back in the queue.
 */
export const STOP_GRACE_MS = 15_000;
/** How long a request waits for its answer before it is sent again (Redis may have restarted, losing it). */
const REQUEST_WAIT_MS = 5_000;

const inboxStream = (runId: string) => `trace-bench:inbox:${runId}`;
const replyStream = (workerId: string) => `trace-bench:reply:${workerId}`;
/** Entries read at once: a busy coordinator answers many requests per read (and commits them in one turn). */
const READ_COUNT = 512;
/** A blocking read's limit: the loop looks at `closed` this often. */
const BLOCK_MS = 1_000;
/** Answers to claims remembered (a claim sent again is answered the same): more than the claims in flight. */
const REMEMBERED_CLAIMS = 10_000;
/** Answers a worker has read before it trims its reply stream. */
const TRIM_EVERY = 256;
/** A reply stream nobody reads any more (its worker is gone) expires. */
const REPLY_TTL_S = 3_600;

type StreamEntries = [string, [string, string[]][]][] | null;

/** `fields` of one stream entry as a record. */
function fieldsOf(list: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < list.length; i += 2) out[list[i]!] = list[i + 1]!;
  return out;
}

const connectionOf = (url: string) => ({ url, maxRetriesPerRequest: null, retryStrategy: (times: number) => Math.min(100 * times, 2_000) });

/** One client watched for the connection's loss and return; says each once. `pipelined`: commands of one turn go in one write. */
function watchedClient(url: string, say: (text: string) => void, onBack: () => void, pipelined = false): Redis & { closing: boolean } {
  const client = Object.assign(new Redis(url, { maxRetriesPerRequest: null, retryStrategy: (times: number) => Math.min(100 * times, 2_000), enableAutoPipelining: pipelined }), { closing: false });
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
  let serving = false;
  let reader: Redis | null = null;
  let loop: Promise<void> | null = null;
  // Tickets queued in one turn (jobs that started together) go in one addBulk: one round trip.
  let toQueue: { ticket: JobTicket; done: (error?: unknown) => void }[] = [];
  const queueTicket = (ticket: JobTicket) =>
    new Promise<void>((resolve, reject) => {
      if (toQueue.length === 0) {
        setImmediate(() => {
          const batch = toQueue;
          toQueue = [];
          tickets.addBulk(batch.map(({ ticket: t }) => ({ name: "job", data: t, opts: { jobId: ticketId(t), removeOnComplete: true, removeOnFail: { age: 24 * 3600 } } }))).then(
            () => batch.forEach((b) => b.done()),
            (error: unknown) => batch.forEach((b) => b.done(error)),
          );
        });
      }
      toQueue.push({ ticket, done: (error) => (error === undefined ? resolve() : reject(error)) });
    });
  return {
    async serve(runId: string, inbox: CoordinatorInbox) {
      reader = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: (times: number) => Math.min(100 * times, 2_000) });
      reader.on("error", () => {});
      const blocking = reader;
      const key = inboxStream(runId);
      const claims = new Map<string, unknown>();
      serving = true;
      // Only requests sent from now on: an earlier coordinator's are stale (their workers ask again).
      const newest = (await blocking.xrevrange(key, "+", "-", "COUNT", 1)) as [string, string[]][];
      let last = newest[0]?.[0] ?? "0";
      loop = (async () => {
        while (serving) {
          let read: StreamEntries;
          try {
            read = (await blocking.xread("COUNT", READ_COUNT, "BLOCK", BLOCK_MS, "STREAMS", key, last)) as StreamEntries;
          } catch {
            if (!serving) return;
            // Redis went away: the stream went with it; read from its start once it is back.
            last = "0";
            await new Promise((resolve) => setTimeout(resolve, 100));
            continue;
          }
          if (read === null) continue;
          const replies = publisher.pipeline();
          const answered = new Set<string>();
          const answer = (to: string, id: string, body: unknown) => {
            replies.xadd(replyStream(to), "*", "id", id, "body", JSON.stringify(body));
            answered.add(to);
          };
          // The batches of a read commit in one transaction; a claim of a job whose batch waits in
          // the group commits the group first (the claim hands out the job's stream as committed).
          let group: { id: string; to: string; batch: EventBatch }[] = [];
          const commitGroup = () => {
            if (group.length === 0) return;
            const acks = inbox.commitAll(group.map((g) => g.batch));
            group.forEach((g, i) => answer(g.to, g.id, acks[i]));
            group = [];
          };
          for (const [, entries] of read) {
            for (const [entryId, list] of entries) {
              last = entryId;
              const { id, to, body } = fieldsOf(list);
              if (id === undefined || to === undefined || body === undefined) continue;
              const request = JSON.parse(body) as WorkerRequest;
              if (request.kind === "batch") {
                group.push({ id, to, batch: request.batch });
                continue;
              }
              let handout = claims.get(id);
              if (handout === undefined) {
                if (group.some((g) => g.batch.jobId === request.ticket.jobId)) commitGroup();
                handout = inbox.claim(request.ticket);
                claims.set(id, handout);
                if (claims.size > REMEMBERED_CLAIMS) claims.delete(claims.keys().next().value!);
              }
              answer(to, id, handout);
            }
          }
          commitGroup();
          for (const to of answered) replies.expire(replyStream(to), REPLY_TTL_S);
          // Read entries are answered: the stream keeps none of them.
          replies.xtrim(key, "MINID", last);
          await replies.exec().catch(() => {});
        }
      })();
    },
    enqueue(ticket: JobTicket) {
      return queueTicket(ticket);
    },
    async requeue(ticket: JobTicket) {
      const id = ticketId(ticket);
      const state = await tickets.getJobState(id);
      if (state !== "failed" && state !== "completed" && state !== "unknown") return null;
      let failed: string | null = null;
      if (state !== "unknown") {
        // A job of that id makes adding it again a no-op (BullMQ): a failed ticket of an unfinished job is replaced.
        const job = await tickets.getJob(id);
        failed = state === "failed" ? (job?.failedReason ?? "no reason given") : null;
        await job?.remove();
      }
      await queueTicket(ticket);
      return failed;
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
      serving = false;
      reader?.disconnect();
      await loop?.catch(() => {});
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
  const workerId = randomUUID();
  const replies = replyStream(workerId);
  const cancelListeners: ((notice: CancelNotice) => void)[] = [];
  interface Pending {
    readonly send: () => void;
    readonly resolve: (answer: unknown) => void;
    readonly reject: (error: Error) => void;
    timer: NodeJS.Timeout | undefined;
  }
  const pending = new Map<string, Pending>();
  // Back from a lost connection (Redis restarted, losing the streams): every request still unanswered goes again now.
  const sender = watchedClient(
    url,
    say,
    () => {
      for (const p of pending.values()) p.send();
    },
    true,
  );
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
  let reader: Redis | null = null;
  let loop: Promise<void> | null = null;

  /** Reads this worker's answers (started with its first request). */
  const readReplies = () => {
    if (loop !== null) return;
    const blocking = (reader = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: (times: number) => Math.min(100 * times, 2_000) }));
    blocking.on("error", () => {});
    loop = (async () => {
      let last = "0";
      let unTrimmed = 0;
      while (!closed) {
        let read: StreamEntries;
        try {
          read = (await blocking.xread("COUNT", READ_COUNT, "BLOCK", BLOCK_MS, "STREAMS", replies, last)) as StreamEntries;
        } catch {
          if (closed) return;
          last = "0";
          await new Promise((resolve) => setTimeout(resolve, 100));
          continue;
        }
        if (read === null) continue;
        for (const [, entries] of read) {
          for (const [entryId, list] of entries) {
            last = entryId;
            const { id, body } = fieldsOf(list);
            const waiting = id === undefined ? undefined : pending.get(id);
            if (waiting === undefined || body === undefined) continue; // answered before (a request sent twice)
            pending.delete(id!);
            clearTimeout(waiting.timer);
            waiting.resolve(JSON.parse(body));
          }
        }
        // Read answers are trimmed now and then, not after every read (a command each).
        unTrimmed += read.reduce((n, [, entries]) => n + entries.length, 0);
        if (unTrimmed >= TRIM_EVERY) {
          unTrimmed = 0;
          void sender.xtrim(replies, "MINID", last).catch(() => {});
        }
      }
    })();
  };

  return {
    async request<A>(request: WorkerRequest): Promise<A> {
      if (closed) throw new Error("the worker is stopping");
      readReplies();
      const runId = request.kind === "claim" ? request.ticket.runId : request.batch.runId;
      const id = requestId(request);
      const body = JSON.stringify(request);
      return new Promise<A>((resolve, reject) => {
        let tries = 0;
        const entry: Pending = {
          send: () => void sender.xadd(inboxStream(runId), "*", "id", id, "to", workerId, "body", body).catch(() => {}),
          resolve: resolve as (answer: unknown) => void,
          reject,
          timer: undefined,
        };
        // No answer yet (the coordinator is busy or stopped, or Redis lost the request): ask again, under the same id.
        const again = () => {
          tries += 1;
          if (tries === 3) say(`no answer from the coordinator of run ${runId} yet (is 'trace-bench run' running?); still waiting`);
          entry.send();
          entry.timer = setTimeout(again, REQUEST_WAIT_MS);
        };
        pending.set(id, entry);
        entry.send();
        entry.timer = setTimeout(again, REQUEST_WAIT_MS);
      });
    },
    async take(concurrency: number, run: (ticket: JobTicket) => Promise<TicketOutcome>) {
      worker = new Worker(
        TICKET_QUEUE,
        async (job: Job<JobTicket>, token?: string) => {
          const outcome = await run(job.data);
          if (outcome.kind === "ran") return outcome.ended;
          // Back to the queue unrun, for another worker (failing it would keep it from being queued again).
          await job.moveToWait(token);
          say(`ticket ${job.id ?? "?"} given back: ${outcome.why}`);
          throw new WaitingError();
        },
        {
        connection,
        concurrency,
        lockDuration: LOCK_MS,
        stalledInterval: STALLED_CHECK_MS,
        maxStalledCount: MAX_STALLED,
        // BullMQ's default waits 15 s after a failed fetch or completion before trying again: across a
        // Redis restart, two or three of those in a row kept a worker idle for 40-110 s.
        runRetryDelay: RUN_RETRY_MS,
        name: `trace-bench-worker-${randomUUID().slice(0, 8)}`,
        },
      );
      worker.on("error", () => {});
      worker.on("failed", (job, error) => say(`ticket ${job?.id ?? "?"} failed: ${error.message}`));
      await worker.waitUntilReady();
    },
    onCancel(listener: (notice: CancelNotice) => void) {
      cancelListeners.push(listener);
    },
    async close() {
      subscriber.closing = true;
      sender.closing = true;
      // The running tickets end first, while requests still go and answers are still read: a
      // cancelled attempt's last batches record its cancellation, an unrun ticket goes back.
      if (worker !== null) {
        let timer: NodeJS.Timeout | undefined;
        const left = await Promise.race([worker.close().then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), STOP_GRACE_MS)))]);
        clearTimeout(timer);
        if (left) {
          say(`the coordinator did not record the cancelled jobs within ${STOP_GRACE_MS / 1000}s; leaving them (their tickets go back to the queue when their locks lapse)`);
          await worker.close(true).catch(() => {});
        }
      }
      closed = true;
      for (const p of pending.values()) {
        clearTimeout(p.timer);
        p.reject(new Error("the worker is stopping"));
      }
      pending.clear();
      reader?.disconnect();
      await loop?.catch(() => {});
      subscriber.disconnect();
      sender.disconnect();
    },
  };
}
