/**
 * `--executor bullmq` under faults, on loopback with a real redis-server, real worker processes
 * and a scripted LLM server whose replies take a while (so a fault lands mid-job). Every wait is on
 * observable state (the log, what a process said), never a fixed sleep:
 * - kill -9 of a worker mid-job: the job is retried on another worker, its answered LLM calls are
 *   replayed from the journal, not sent again (the server's request count says so);
 * - kill -9 of the coordinator: the same command resumes, no job is recorded twice, replay --verify passes;
 * - Ctrl-C of the coordinator: every worker's running job is cancelled and recorded, and the run resumes;
 * - Redis restarted mid-run, back without its data (the tests' Redis keeps none): the run moves again
 *   and finishes (a hang fails on a deadline, not at the case's timeout), nothing lost, nothing sent
 *   that the log does not show;
 * - a worker killed after such a restart, mid-job: its ticket, which Redis lost, was queued again by
 *   the coordinator, so another worker runs the job and the run does not wait for it forever.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCli, tempDir } from "../support/cli.js";
import { startWorkers, startCoordinator as startBullmqCoordinator, stopWorkers, type WorkerProcess } from "../support/bullmq-workers.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fake-openai-server.js";
import { until } from "../support/processes.js";
import { startRedis, type RedisServer } from "../support/redis-server.js";
import { csvRows, eventsOf, type EventRow } from "../support/run-dir.js";
import { xmlReply } from "../support/scripted-llm.js";

let redis: RedisServer;
const workers: WorkerProcess[] = [];
const servers: FakeOpenAiServer[] = [];
const coordinators: ChildProcess[] = [];
const SECRET = "sk-fault-secret-4242";
const env = { FAKE_KEY: SECRET };

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  for (const c of coordinators.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await stopWorkers(workers);
  for (const s of servers.splice(0)) await s.close();
});
afterAll(async () => {
  await redis?.stop();
});

const CASE_MS = 300_000;

/** A real-mode config whose every reply takes `delayMs`: `seeds` jobs of a few calls each. */
async function slowRun(seeds: number, delayMs: number): Promise<{ config: string; runs: string; server: FakeOpenAiServer }> {
  const server = await startFakeOpenAiServer([], { fallback: { reply: xmlReply({ float0: 2.5 }, "scripted"), delayMs } });
  servers.push(server);
  const dir = tempDir();
  const config = join(dir, "config.yaml");
  writeFileSync(
    config,
    `mode: real\nllm: {model: test-model, base_url: "${server.baseURL}", api_key_env: FAKE_KEY}\nseeds: [${Array.from({ length: seeds }, (_, i) => i + 1).join(", ")}]\nmax_workers: 4\ntasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 4, ps_batches: 1}]\n`,
  );
  return { config, runs: join(dir, "runs"), server };
}


/** The run's coordinator: `run --executor bullmq` on this file's Redis, killed after the test if still running. */
const startCoordinator = (config: string, runs: string, runId: string) =>
  startBullmqCoordinator({ config, runs, runId, redisUrl: redis.url, env }, coordinators);

const events = (runDir: string): EventRow[] => (existsSync(join(runDir, "events.db")) ? eventsOf(runDir) : []);
const ofType = (rows: readonly EventRow[], type: string) => rows.filter((e) => e.type === type);

/** No (job, attempt) finished twice, and each job of results.csv once. */
function expectRecordedOnce(runDir: string): void {
  const finished = ofType(eventsOf(runDir), "JobFinished").map((e) => `${e.job_id}#${String(e.data.attempt)}`);
  expect(new Set(finished).size).toBe(finished.length);
  const ids = csvRows(join(runDir, "results.csv")).map((r) => r.job_id);
  expect(new Set(ids).size).toBe(ids.length);
}

async function expectVerified(runDir: string): Promise<void> {
  const verified = await runCli(["replay", runDir, "--verify"]);
  expect(verified.code, `${verified.stdout}\n${verified.stderr}`).toBe(0);
}

describe("bullmq executor faults", () => {
  it(
    "kill -9 of a worker mid-job: another worker re-runs it and its answered calls are replayed, not re-sent",
    async () => {
      const { config, runs, server } = await slowRun(1, 250);
      workers.push(...(await startWorkers(2, redis.url, { env })));
      const run = startCoordinator(config, runs, "worker-kill");
      const runDir = join(runs, "worker-kill");
      // Mid-job: two calls answered and committed.
      expect(await until(() => ofType(events(runDir), "LlmCallCompleted").length >= 2, 120_000, 100), run.output()).toBe(true);
      const victim = workers.find((w) => w.said().includes("attempt 1: started"))!;
      const survivor = workers.find((w) => w !== victim)!;
      victim.child.kill("SIGKILL");
      await victim.exited;
      expect(await run.exited, run.output()).toBe(0);
      expect(survivor.said()).toContain("attempt 2: started");
      const log = eventsOf(runDir);
      const replayed = ofType(log, "LlmCallCompleted").filter((e) => e.data.attempt === 2 && e.data.replayed === true);
      expect(replayed.length).toBeGreaterThanOrEqual(2);
      // Every request the server got (the preflight aside) has its LlmCallStarted in the log, sent live once:
      // the replayed calls were not sent again. The victim's call in flight may not have reached the server
      // (killed between its LlmCallStarted's commit and the request, or mid-request).
      const sentLive = ofType(log, "LlmCallStarted").length - replayed.length;
      expect(server.received.length - 1).toBeLessThanOrEqual(sentLive);
      expect(server.received.length - 1).toBeGreaterThanOrEqual(sentLive - 1);
      expect(csvRows(join(runDir, "results.csv")).map((r) => r.status)).toEqual(["ok"]);
      expectRecordedOnce(runDir);
      await expectVerified(runDir);
    },
    CASE_MS,
  );

  it(
    "kill -9 of the coordinator: the same command resumes, no job recorded twice",
    async () => {
      const { config, runs } = await slowRun(4, 150);
      workers.push(...(await startWorkers(2, redis.url, { env, concurrency: 2 })));
      const first = startCoordinator(config, runs, "coordinator-kill");
      const runDir = join(runs, "coordinator-kill");
      expect(await until(() => ofType(events(runDir), "LlmCallCompleted").length >= 3, 120_000, 100), first.output()).toBe(true);
      first.child.kill("SIGKILL");
      await first.exited;
      const again = startCoordinator(config, runs, "coordinator-kill");
      expect(await again.exited, again.output()).toBe(0);
      expect(again.output()).toContain("Resuming coordinator-kill");
      const rows = csvRows(join(runDir, "results.csv"));
      expect(rows.map((r) => r.status)).toEqual(["ok", "ok", "ok", "ok"]);
      expectRecordedOnce(runDir);
      await expectVerified(runDir);
    },
    CASE_MS,
  );

  it(
    "Ctrl-C of the coordinator: the workers' running jobs are cancelled and recorded; the run resumes",
    async () => {
      const { config, runs } = await slowRun(3, 200);
      workers.push(...(await startWorkers(2, redis.url, { env, concurrency: 2 })));
      const run = startCoordinator(config, runs, "ctrl-c");
      const runDir = join(runs, "ctrl-c");
      expect(await until(() => ofType(events(runDir), "LlmCallCompleted").length >= 2, 120_000, 100), run.output()).toBe(true);
      run.child.kill("SIGINT");
      expect(await run.exited, run.output()).toBe(130);
      const log = eventsOf(runDir);
      const started = new Set(ofType(log, "JobQueued").map((e) => e.job_id));
      const finished = ofType(log, "JobFinished");
      // Every job a worker started recorded how it ended; the ones still running then, cancelled.
      expect(new Set(finished.map((e) => e.job_id))).toEqual(started);
      expect(finished.some((e) => e.data.status === "cancelled")).toBe(true);
      expect(ofType(log, "RunInterrupted")).toHaveLength(1);
      expect(workers.some((w) => w.said().includes(": cancelled"))).toBe(true);
      const again = startCoordinator(config, runs, "ctrl-c");
      expect(await again.exited, again.output()).toBe(0);
      expect(csvRows(join(runDir, "results.csv")).map((r) => r.status)).toEqual(["ok", "ok", "ok"]);
      expectRecordedOnce(runDir);
      await expectVerified(runDir);
    },
    CASE_MS,
  );

  it(
    "Redis restarted mid-run, back empty: the run moves again and finishes, nothing lost, and no secret went through Redis",
    async () => {
      const { config, runs, server } = await slowRun(3, 200);
      workers.push(...(await startWorkers(2, redis.url, { env })));
      const run = startCoordinator(config, runs, "redis-restart");
      const runDir = join(runs, "redis-restart");
      expect(await until(() => ofType(events(runDir), "LlmCallCompleted").length >= 2, 120_000, 100), run.output()).toBe(true);
      // While jobs run, nothing in Redis holds the API key.
      const dump = await redisDump(redis.url);
      expect(dump.length).toBeGreaterThan(0);
      expect(dump).not.toContain(SECRET);
      // The fault lands mid-run.
      expect(ofType(events(runDir), "RunFinished"), run.output()).toHaveLength(0);
      await redis.restart();
      const committedBefore = events(runDir).length;
      // Recovery takes a few seconds (docs/performance.md); the deadlines only tell a hang from a slow machine.
      expect(await until(() => events(runDir).length > committedBefore, 60_000, 100), `the run did not move again after Redis came back\n${run.output()}`).toBe(true);
      expect(await until(() => run.child.exitCode !== null, 120_000, 100), `the run did not end after Redis came back\n${run.output()}`).toBe(true);
      expect(await run.exited, run.output()).toBe(0);
      expect(await until(() => workers.every((w) => w.said().includes("reconnected")), 60_000, 100)).toBe(true);
      expect(csvRows(join(runDir, "results.csv")).map((r) => r.status)).toEqual(["ok", "ok", "ok"]);
      const log = eventsOf(runDir);
      expect(new Set(ofType(log, "JobFinished").map((e) => e.job_id))).toEqual(new Set(ofType(log, "JobQueued").map((e) => e.job_id)));
      // Nothing paid that the log does not show: every request the server got (the preflight aside) has its LlmCallStarted.
      const sentLive = ofType(log, "LlmCallStarted").length - ofType(log, "LlmCallCompleted").filter((e) => e.data.replayed === true).length;
      expect(server.received.length - 1).toBeLessThanOrEqual(sentLive);
      expectRecordedOnce(runDir);
      await expectVerified(runDir);
    },
    CASE_MS,
  );

  it(
    "a worker killed mid-job after Redis came back empty: another worker runs the job again, the run does not hang",
    async () => {
      const { config, runs } = await slowRun(3, 300);
      workers.push(...(await startWorkers(2, redis.url, { env })));
      const run = startCoordinator(config, runs, "redis-empty-kill");
      const runDir = join(runs, "redis-empty-kill");
      expect(await until(() => ofType(events(runDir), "LlmCallCompleted").length >= 2, 120_000, 100), run.output()).toBe(true);
      await redis.restart();
      expect(await until(() => workers.every((w) => w.said().includes("reconnected")), 60_000, 100)).toBe(true);
      expect(ofType(events(runDir), "RunFinished"), run.output()).toHaveLength(0);
      // A worker still on its job: its ticket's BullMQ job went with Redis's data.
      const busy = (w: WorkerProcess) => (w.said().match(/: started/g) ?? []).length > (w.said().match(/attempt \d+: (ok|failed|cancelled|stopped|not recorded)/g) ?? []).length;
      const victim = workers.find(busy);
      expect(victim, `no worker was running a job after the restart\n${workers.map((w) => w.said()).join("\n")}`).toBeDefined();
      victim!.child.kill("SIGKILL");
      await victim!.exited;
      expect(await until(() => run.child.exitCode !== null, 180_000, 100), `the run did not end after its worker died\n${run.output()}`).toBe(true);
      expect(await run.exited, run.output()).toBe(0);
      expect(csvRows(join(runDir, "results.csv")).map((r) => r.status)).toEqual(["ok", "ok", "ok"]);
      expect(ofType(eventsOf(runDir), "JobFinished").some((e) => Number(e.data.attempt) >= 2)).toBe(true);
      expectRecordedOnce(runDir);
      await expectVerified(runDir);
    },
    CASE_MS,
  );
});

/** Every key and value in the Redis at `url`, as text: one pipeline, so that it is read while the jobs still run. */
async function redisDump(url: string): Promise<string> {
  const { Redis } = await import("ioredis");
  const client = new Redis(url, { maxRetriesPerRequest: null });
  try {
    const keys: string[] = [];
    let cursor = "0";
    do {
      const [next, batch] = await client.scan(cursor, "COUNT", 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== "0");
    const types = ((await client.pipeline(keys.map((key) => ["type", key])).exec()) ?? []).map(([, type]) => String(type));
    const reads = keys.flatMap((key, i) => {
      const type = types[i];
      const read = type === "string" ? ["get", key] : type === "hash" ? ["hgetall", key] : type === "list" ? ["lrange", key, "0", "-1"] : type === "zset" ? ["zrange", key, "0", "-1"] : type === "set" ? ["smembers", key] : type === "stream" ? ["xrange", key, "-", "+"] : null;
      return read === null ? [] : [read];
    });
    const values = ((await client.pipeline(reads).exec()) ?? []).map(([, value]) => JSON.stringify(value));
    return [...keys, ...values].join("\n");
  } finally {
    client.disconnect();
  }
}
