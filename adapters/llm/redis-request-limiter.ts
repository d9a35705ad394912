/**
 * The run's request limiter (src/llm/request-limiter.ts) shared through Redis, for a run whose jobs
 * are spread over several worker processes (`--executor bullmq`): the processes on one Redis
 * together keep each model within `maxConcurrency` requests in flight and `requestsPerMinute`
 * started in any window, as one process's limiter does alone. BullMQ's own limiter counts jobs, not
 * requests, so it cannot do this.
 *
 * Per model, Redis holds sorted sets, changed only by Lua scripts (atomic):
 * - the slots in flight, each scored by its lease's end: a process renews the leases of its slots
 *   while it lives, so the slot of a process that died (kill -9) comes back when its lease ends;
 * - the starts of the current window (under a rate limit), as the local limiter's list;
 * - the line: one ticket per waiting process, so that processes take turns (see ACQUIRE).
 * Time is Redis's own clock (TIME), so the workers' clocks need not agree. A released slot is
 * published on a channel, which wakes the processes waiting for one; a lease's end or a window's
 * oldest start is waited for with a timer the script's answer sets.
 *
 * Redis lost (restarted, network): waiting requests keep waiting and are retried when it is back,
 * a notice says so, and nothing fails but by the caller's signal (a job timeout, Ctrl-C). A Redis
 * restarted without its data is told apart by its "epoch" (a random id it keeps): every process
 * registers its slots and recent starts again as soon as it reconnects, and for a short settle
 * (`settleMs`, 3 s) no new slot is granted, so that the slots of processes that have not reconnected
 * yet are not handed out twice. A live process reconnects within a second (its retries are at most
 * 1 s apart), so 3 s covers them without holding every request of the run for a whole lease (15 s:
 * what every run waited after a Redis restart before). A process cut off from Redis for longer than
 * the settle across such a restart may see its slots in flight granted again once: the same as a
 * process cut off for a lease without a restart.
 *
 * Within a process requests are served first come first served; between processes, in turns.
 * `inFlight` and `waiting` count this process's. `close()` gives its slots back at once and ends
 * the connections; the connections alone never keep a process alive.
 */
import { randomBytes } from "node:crypto";
import type { Redis, RedisOptions } from "ioredis";
import { LlmError } from "../../src/llm/llm-error.js";
import type { ReleaseSlot, RequestLimiter, RequestLimiterOptions, RequestLimiters } from "../../src/llm/request-limiter.js";

export interface RedisRequestLimitersOptions {
  /** `redis://host:port` (a password in it is never shown). */
  readonly url: string;
  /** Each model's limits (the same as the local limiter's), asked on the model's first use. */
  readonly optionsFor?: (model: string) => RequestLimiterOptions;
  /** Where the keys live in Redis: processes sharing limits use the same prefix. */
  readonly prefix?: string;
  /** How long a slot outlives its process without renewal; renewed every third of it. */
  readonly leaseMs?: number;
  /** After Redis lost its data, how long no new slot is granted while the live processes register theirs again (at most a lease). */
  readonly settleMs?: number;
  /** Where the notices (Redis lost, back, restarted without its data) go: a line each. Default: stderr. */
  readonly onNotice?: (line: string) => void;
}

export interface RedisRequestLimiters extends RequestLimiters {
  /** Gives back this process's slots, ends the waits (as aborted) and closes the connections. */
  close(): Promise<void>;
}

export const DEFAULT_LIMIT_PREFIX = "trace-bench:llm-limit";
/** Long enough for a busy event loop's pause, short enough that a dead worker's slots come back soon. */
export const DEFAULT_LEASE_MS = 15_000;
/** Three of a live process's reconnect tries (at most 1 s apart): long enough for each to register its slots again. */
export const DEFAULT_SETTLE_MS = 3_000;

/** Redis's clock in ms; the epoch of this Redis's data, made by the first caller, compared with the caller's. */
const PRELUDE = `
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- A caller that knew another epoch has seen Redis lose its data: no new slot for settleMs, while
-- the processes that hold slots register them again.
local function epochOf(key, known, fresh, now, settleMs)
  local epoch = redis.call('HGET', key, 'id')
  if not epoch then
    redis.call('HSET', key, 'id', fresh, 'born', now)
    if known ~= '' then redis.call('HSET', key, 'settle', now + settleMs) end
    return fresh
  end
  if known ~= '' and known ~= epoch then
    local settle = math.max(tonumber(redis.call('HGET', key, 'born')) + settleMs, tonumber(redis.call('HGET', key, 'settle') or '0'))
    redis.call('HSET', key, 'settle', settle)
  end
  return epoch
end
local function keepFor(key, ms)
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
end
`;

/**
 * KEYS: slots, starts, epoch, line, tickets. ARGV: token, maxConcurrency (0: none), perWindow (0: none),
 * windowMs, leaseMs, known epoch, fresh epoch, ticket, channel, model, settleMs.
 * → {granted 1|0, ms to wait at most before asking again, epoch, now}.
 *
 * The line: a process that waits has a ticket in it (scored by its first ask), kept while it asks
 * again within a lease; a free slot goes to the tickets at the front. A process served joins the
 * back again for its next request, so the processes take turns rather than the quickest one
 * taking every slot it frees.
 */
const ACQUIRE = `${PRELUDE}
local now = clock()
local leaseMs = tonumber(ARGV[5])
local epoch = epochOf(KEYS[3], ARGV[6], ARGV[7], now, tonumber(ARGV[11]))
local ticket = ARGV[8]
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', now)) do redis.call('ZREM', KEYS[4], gone) end
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now)
if not redis.call('ZSCORE', KEYS[4], ticket) then redis.call('ZADD', KEYS[4], now, ticket) end
redis.call('ZADD', KEYS[5], now + leaseMs, ticket)
keepFor(KEYS[4], leaseMs)
keepFor(KEYS[5], leaseMs)
local settle = tonumber(redis.call('HGET', KEYS[3], 'settle') or '0')
if now < settle then return {0, settle - now, epoch, now} end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local free = 1000000000
local waitMs = leaseMs
local maxConcurrency = tonumber(ARGV[2])
if maxConcurrency > 0 then
  free = maxConcurrency - redis.call('ZCARD', KEYS[1])
  if free <= 0 then
    local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
    waitMs = tonumber(first[2]) - now + 1
  end
end
local perWindow = tonumber(ARGV[3])
local windowMs = tonumber(ARGV[4])
if perWindow > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - windowMs)
  local freeStarts = perWindow - redis.call('ZCARD', KEYS[2])
  if freeStarts <= 0 then
    local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    waitMs = tonumber(oldest[2]) + windowMs - now
  end
  free = math.min(free, freeStarts)
end
if free <= 0 then return {0, waitMs, epoch, now} end
-- Others are before it in line: their grants wake it.
if redis.call('ZRANK', KEYS[4], ticket) >= free then return {0, leaseMs, epoch, now} end
redis.call('ZREM', KEYS[4], ticket)
redis.call('ZREM', KEYS[5], ticket)
if perWindow > 0 then
  redis.call('ZADD', KEYS[2], now, ARGV[1])
  keepFor(KEYS[2], windowMs)
end
redis.call('ZADD', KEYS[1], now + leaseMs, ARGV[1])
keepFor(KEYS[1], leaseMs)
-- Room for the next in line.
if free > 1 and redis.call('ZCARD', KEYS[4]) > 0 then redis.call('PUBLISH', ARGV[9], ARGV[10]) end
return {1, 0, epoch, now}
`;

/**
 * KEYS: slots, starts, epoch. ARGV: leaseMs, windowMs, known epoch, fresh epoch, settleMs, n, n slot
 * tokens, then token/start pairs to register again (after a loss of data). → {epoch, now}.
 */
const RENEW = `${PRELUDE}
local now = clock()
local leaseMs = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2])
local epoch = epochOf(KEYS[3], ARGV[3], ARGV[4], now, tonumber(ARGV[5]))
local n = tonumber(ARGV[6])
for i = 7, 6 + n do redis.call('ZADD', KEYS[1], now + leaseMs, ARGV[i]) end
if n > 0 then keepFor(KEYS[1], leaseMs) end
local restored = 0
for i = 7 + n, #ARGV - 1, 2 do
  local at = tonumber(ARGV[i + 1])
  if at > now - windowMs then
    redis.call('ZADD', KEYS[2], 'NX', at, ARGV[i])
    restored = restored + 1
  end
end
if restored > 0 then keepFor(KEYS[2], windowMs) end
return {epoch, now}
`;

/** KEYS: slots (a slot given back) or line, tickets (a process that no longer waits). ARGV: member, channel, model. */
const LEAVE = `
for _, key in ipairs(KEYS) do redis.call('ZREM', key, ARGV[1]) end
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
`;

/** A wait between two asks is at least this long (and at most a third of a lease, which keeps a ticket in line). */
const MIN_RETRY_MS = 2;
/** After a failed ask, and between looks while Redis is away. */
const ERROR_RETRY_MS = 250;

function positiveInteger(name: string, value: number | undefined): number {
  if (value === undefined) return 0;
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`redis request limiter: ${name} must be a positive integer, got ${value}`);
  return value;
}

/** The URL without its password: for messages. */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = "";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return "(unreadable Redis URL)";
  }
}

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split("\n")[0]!;

interface Waiter {
  grant(release: ReleaseSlot): void;
}

interface ModelLimiter extends RequestLimiter {
  pump(): void;
  /** Its slots' leases renewed; with `withStarts`, its recent starts registered again too. */
  renew(withStarts: boolean): Promise<void>;
  /** Ends every wait as aborted and gives the held slots back. */
  shutdown(): Promise<void>;
}

/**
 * Connects to Redis and returns the limiters of this process, one per model on first use (the
 * interface of `createRequestLimiters`). Rejects with one line naming the URL when Redis cannot be
 * reached at first; afterwards, a lost Redis only makes requests wait. ioredis is loaded here, so a
 * run that uses no Redis never loads it.
 */
export async function connectRedisRequestLimiters(options: RedisRequestLimitersOptions): Promise<RedisRequestLimiters> {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  if (!Number.isInteger(leaseMs) || leaseMs < 30) throw new RangeError(`redis request limiter: leaseMs must be an integer of at least 30, got ${leaseMs}`);
  const settleMs = Math.min(options.settleMs ?? DEFAULT_SETTLE_MS, leaseMs);
  if (!Number.isInteger(settleMs) || settleMs < 0) throw new RangeError(`redis request limiter: settleMs must be a whole number of ms, got ${options.settleMs}`);
  const prefix = options.prefix ?? DEFAULT_LIMIT_PREFIX;
  const notice = options.onNotice ?? ((line: string) => process.stderr.write(`trace-bench: ${line}\n`));
  const where = shownUrl(options.url);
  const channel = `${prefix}:freed`;
  const epochKey = `${prefix}:epoch`;

  const { Redis } = await import("ioredis");
  const connection: RedisOptions = {
    lazyConnect: true,
    // A command while Redis is away fails at once: the waits retry when it is back ("ready").
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => Math.min(100 * times, 1_000),
    connectionName: "trace-bench-llm-limit",
  };
  const command: Redis = new Redis(options.url, connection);
  const subscriber: Redis = new Redis(options.url, { ...connection, enableOfflineQueue: true });
  /** The connection's last error ("Connection is closed" alone does not say why). */
  let lastError: string | undefined;
  for (const client of [command, subscriber]) client.on("error", (error: unknown) => (lastError = reasonOf(error)));
  try {
    await command.connect();
    await subscriber.connect();
    await subscriber.subscribe(channel);
  } catch (error) {
    command.disconnect();
    subscriber.disconnect();
    throw new Error(`the shared LLM request limiter cannot reach Redis at ${where}: ${lastError ?? reasonOf(error)}; start redis-server there or give the right URL (--redis)`);
  }

  // Like the local limiter, this one keeps the process alive only while it has a question on its
  // way to Redis (a waiting request has a timer besides): a process that ends its work without
  // close() still exits. The subscriber's connection never does.
  let questions = 0;
  const socketOf = (client: Redis) => (client as unknown as { stream?: { ref?: () => void; unref?: () => void } }).stream;
  const holdOpen = () => (questions > 0 ? socketOf(command)?.ref?.() : socketOf(command)?.unref?.());
  command.on("connect", holdOpen);
  subscriber.on("connect", () => socketOf(subscriber)?.unref?.());
  socketOf(subscriber)?.unref?.();
  holdOpen();
  /** One script on Redis. */
  function ask(script: string, keys: number, ...args: (string | number)[]): Promise<unknown> {
    questions += 1;
    holdOpen();
    return command.eval(script, keys, ...args).finally(() => {
      questions -= 1;
      holdOpen();
    });
  }

  const processId = randomBytes(6).toString("hex");
  let tokens = 0;
  let knownEpoch = "";
  let up = true;
  let closing = false;
  const errorsSaid = new Set<string>();
  const byModel = new Map<string, ModelLimiter>();

  /** A reply names this Redis's epoch: another than the one known means it lost its data. */
  function learnEpoch(epoch: string): void {
    if (epoch === knownEpoch) return;
    const lost = knownEpoch !== "";
    knownEpoch = epoch;
    if (!lost) return;
    const held = [...byModel.values()].reduce((n, limiter) => n + limiter.inFlight, 0);
    notice(`Redis at ${where} came back without its data (restarted?): this process's ${held} LLM request slot(s) are registered again, and new requests wait up to ${settleMs / 1000} s for the other processes' to be`);
    for (const limiter of byModel.values()) void limiter.renew(true);
  }

  function commandFailed(error: unknown): void {
    if (!up || closing) return;
    const reason = reasonOf(error);
    if (!errorsSaid.has(reason)) {
      errorsSaid.add(reason);
      notice(`the shared LLM request limiter's call to Redis at ${where} failed (${reason}); retrying`);
    }
  }

  command.on("close", () => {
    if (!up || closing) return;
    up = false;
    notice(`lost the connection to Redis at ${where} (shared LLM request limits): requests wait, reconnecting`);
  });
  command.on("ready", () => {
    if (up || closing) return;
    up = true;
    errorsSaid.clear();
    notice(`reconnected to Redis at ${where}: requests go on`);
    // With its recent starts: a process that holds no slot would otherwise register them only at its next ask.
    for (const limiter of byModel.values()) void limiter.renew(true).finally(() => limiter.pump());
  });
  subscriber.on("message", (_channel: string, model: string) => byModel.get(model)?.pump());

  const renewTimer = setInterval(() => {
    for (const limiter of byModel.values()) if (limiter.inFlight > 0) void limiter.renew(false);
  }, Math.max(10, Math.floor(leaseMs / 3)));
  renewTimer.unref();

  function modelLimiter(model: string, limits: RequestLimiterOptions): ModelLimiter {
    const maxConcurrency = positiveInteger("maxConcurrency", limits.maxConcurrency);
    const perWindow = positiveInteger("requestsPerMinute", limits.requestsPerMinute);
    const windowMs = limits.windowMs ?? 60_000;
    if (!(windowMs > 0)) throw new RangeError(`redis request limiter: windowMs must be positive, got ${windowMs}`);
    const [slotsKey, startsKey, lineKey, ticketsKey] = ["slots", "starts", "line", "tickets"].map((set) => `${prefix}:${set}:${model}`) as [string, string, string, string];
    /** This process's place in the model's line (one per process: its requests take turns here). */
    const ticket = processId;

    const queue: Waiter[] = [];
    /** This process's slots in flight, by token. */
    const held = new Set<string>();
    /** This process's starts in the current window (Redis's clock), to register again after a loss of data. */
    let starts: { token: string; at: number }[] = [];
    let asking = false;
    /** Its ticket is in the line (it asked and was told to wait). */
    let inLine = false;
    /** A slot was freed while a question was on its way: its "no" may be stale, ask again at once. */
    let wokenWhileAsking = false;
    let retryTimer: NodeJS.Timeout | undefined;

    const freshEpoch = () => randomBytes(8).toString("hex");

    function release(token: string): void {
      if (!held.delete(token)) return;
      if (up) ask(LEAVE, 1, slotsKey, token, channel, model).catch(() => {}); // else its lease ends
      pump();
    }

    function releaser(token: string): ReleaseSlot {
      let released = false;
      return () => {
        if (released) return;
        released = true;
        release(token);
      };
    }

    function retryIn(ms: number): void {
      clearTimeout(retryTimer);
      retryTimer = setTimeout(() => {
        retryTimer = undefined;
        pump();
      }, Math.max(MIN_RETRY_MS, Math.ceil(ms)));
    }

    function pump(): void {
      if (asking) {
        wokenWhileAsking = true;
        return;
      }
      if (queue.length === 0 || closing) {
        // Nobody left to wake: do not keep the process alive for an empty queue, nor others behind its ticket.
        clearTimeout(retryTimer);
        retryTimer = undefined;
        if (inLine && up) {
          inLine = false;
          ask(LEAVE, 2, lineKey, ticketsKey, ticket, channel, model).catch(() => {}); // else its ticket expires
        }
        return;
      }
      // This process alone fills the limit: only one of its own releases can help.
      if (maxConcurrency > 0 && held.size >= maxConcurrency) return;
      // Redis away: "ready" pumps again; the timer keeps the waiting process alive meanwhile.
      if (!up) {
        retryIn(ERROR_RETRY_MS);
        return;
      }
      clearTimeout(retryTimer);
      retryTimer = undefined;
      asking = true;
      wokenWhileAsking = false;
      const token = `${processId}:${(tokens += 1)}`;
      ask(ACQUIRE, 5, slotsKey, startsKey, epochKey, lineKey, ticketsKey, token, maxConcurrency, perWindow, windowMs, leaseMs, knownEpoch, freshEpoch(), ticket, channel, model, settleMs)
        .then(
          (reply) => {
            asking = false;
            const [granted, waitMs, epoch, now] = reply as [number, number, string, number];
            learnEpoch(epoch);
            inLine = granted !== 1;
            if (granted === 1) {
              held.add(token);
              if (perWindow > 0) {
                starts = starts.filter((s) => s.at > now - windowMs);
                starts.push({ token, at: now });
              }
              const waiter = queue.shift();
              // Its caller gave up while the question was on its way: the slot goes back.
              if (waiter === undefined || closing) release(token);
              else waiter.grant(releaser(token));
              pump();
            } else if (wokenWhileAsking || queue.length === 0) {
              pump();
            } else {
              // Asking again within a lease keeps its ticket in line.
              retryIn(Math.min(waitMs, leaseMs / 3));
            }
          },
          (error: unknown) => {
            asking = false;
            commandFailed(error);
            // Asked again after a pause (a lost connection: once it is back).
            if (queue.length > 0) retryIn(ERROR_RETRY_MS);
          },
        );
    }

    async function renew(withStarts: boolean): Promise<void> {
      if (!up || closing || (held.size === 0 && !(withStarts && starts.length > 0))) return;
      const pairs = withStarts ? starts.flatMap((s) => [s.token, s.at]) : [];
      try {
        const [epoch] = (await ask(RENEW, 3, slotsKey, startsKey, epochKey, leaseMs, windowMs, knownEpoch, freshEpoch(), settleMs, held.size, ...held, ...pairs)) as [string, number];
        learnEpoch(epoch);
      } catch (error) {
        commandFailed(error);
      }
    }

    return {
      get inFlight() {
        return held.size;
      },
      get waiting() {
        return queue.length;
      },
      pump,
      renew,
      async shutdown() {
        clearTimeout(retryTimer);
        for (const waiter of queue.splice(0)) waiter.grant(() => {});
        const tokensHeld = [...held];
        held.clear();
        if (!up) return; // the leases and the ticket end by themselves
        const leaving = tokensHeld.map((token) => ask(LEAVE, 1, slotsKey, token, channel, model));
        if (inLine) leaving.push(ask(LEAVE, 2, lineKey, ticketsKey, ticket, channel, model));
        inLine = false;
        await Promise.allSettled(leaving);
      },
      acquire(signal?: AbortSignal): Promise<ReleaseSlot> {
        const aborted = () => new LlmError("aborted", "aborted while waiting for a request slot");
        if (signal?.aborted || closing) return Promise.reject(aborted());
        return new Promise<ReleaseSlot>((resolve, reject) => {
          const onAbort = () => {
            const at = queue.indexOf(waiter);
            if (at >= 0) queue.splice(at, 1);
            pump();
            reject(aborted());
          };
          const waiter: Waiter = {
            grant(releaseSlot) {
              signal?.removeEventListener("abort", onAbort);
              if (closing) reject(aborted());
              else resolve(releaseSlot);
            },
          };
          signal?.addEventListener("abort", onAbort, { once: true });
          queue.push(waiter);
          pump();
        });
      },
    };
  }

  return {
    forModel(model) {
      let limiter = byModel.get(model);
      if (limiter === undefined) {
        limiter = modelLimiter(model, options.optionsFor?.(model) ?? {});
        byModel.set(model, limiter);
      }
      return limiter;
    },
    async close() {
      if (closing) return;
      clearInterval(renewTimer);
      // Slots go back before the waits end, so that no waiter here is handed one.
      const limiters = [...byModel.values()];
      closing = true;
      await Promise.all(limiters.map((limiter) => limiter.shutdown()));
      // Held open until Redis has answered the goodbyes.
      questions += 1;
      holdOpen();
      socketOf(subscriber)?.ref?.();
      await Promise.allSettled([command.quit(), subscriber.quit()]);
      command.disconnect();
      subscriber.disconnect();
    },
  };
}
