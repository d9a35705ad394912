/**
 * `--executor bullmq`: a worker stopped (Ctrl-C, SIGTERM) while it holds a ticket it has not run
 * must not leave the run waiting forever. Before the fix, the worker's claim failed ("the worker is
 * stopping"), BullMQ moved the ticket to its failed set, and queuing it again was a no-op (a job of
 * that id existed): the coordinator waited for the job for ever.
 *
 * Deterministic: the first worker is the only one up when the run queues its job, and its test
 * hook (TRACE_BENCH_TEST_WORKER_STOP_ON_TAKE) stops it as on SIGTERM right after it took the
 * ticket, before its claim; the second worker starts once the first has exited. Every wait is on
 * observable state; the deadlines only tell a hang from a slow machine.
 *
 * A worker stopped mid-job records the job `cancelled` (what `trace-bench worker` promises): before,
 * its transport closed at once, the cancellation's batch was never sent, and the run waited for the
 * job for ever too.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCli, tempDir } from "../support/cli.js";
import { startWorker, startCoordinator as startBullmqCoordinator, stopWorkers, type WorkerProcess } from "../support/bullmq-workers.js";
import { until } from "../support/processes.js";
import { startRedis, type RedisServer } from "../support/redis-server.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fake-openai-server.js";
import { csvRows, eventsOf } from "../support/run-dir.js";
import { xmlReply } from "../support/scripted-llm.js";

let redis: RedisServer;
const workers: WorkerProcess[] = [];
const coordinators: ChildProcess[] = [];
const servers: FakeOpenAiServer[] = [];

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

const CASE_MS = 240_000;

const env = { FAKE_KEY: "sk-worker-stop" };

/** The run's coordinator: `run --executor bullmq` on this file's Redis, killed after the test if still running. */
const startCoordinator = (config: string, runs: string, runId: string) =>
  startBullmqCoordinator({ config, runs, runId, redisUrl: redis.url, env }, coordinators);

describe("bullmq: a worker stopped while it holds a ticket", () => {
  it(
    "stopped right after taking the ticket, before its claim: the ticket goes back, another worker runs the job, the run ends",
    async () => {
      const dir = tempDir();
      const config = join(dir, "config.yaml");
      writeFileSync(config, "mode: stub\nseeds: [1]\nmax_workers: 1\ntasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 2, ps_batches: 1}]\n");
      const runs = join(dir, "runs");
      const stopping = await startWorker(redis.url, { env: { TRACE_BENCH_TEST_WORKER_STOP_ON_TAKE: "1" } });
      workers.push(stopping);
      const run = startCoordinator(config, runs, "stop-on-take");
      expect(await until(() => stopping.child.exitCode !== null, 60_000, 50), `the stopped worker did not exit\n${stopping.said()}\n${run.output()}`).toBe(true);
      expect(stopping.said()).toContain("TRACE_BENCH_TEST_WORKER_STOP_ON_TAKE");
      expect(stopping.said()).not.toMatch(/attempt \d+: started/);
      // Given back to the queue, not failed (a failed ticket could not be queued again under its id).
      expect(stopping.said()).toContain("given back");
      expect(stopping.said()).not.toContain("failed");
      const survivor = await startWorker(redis.url);
      workers.push(survivor);
      expect(await until(() => run.child.exitCode !== null, 90_000, 100), `the run waited on the stopped worker's ticket\n${run.output()}\n${survivor.said()}`).toBe(true);
      expect(run.child.exitCode, run.output()).toBe(0);
      expect(survivor.said()).toMatch(/attempt \d+: started/);
      const runDir = join(runs, "stop-on-take");
      expect(csvRows(join(runDir, "results.csv")).map((r) => r.status)).toEqual(["ok"]);
      const finished = eventsOf(runDir).filter((e) => e.type === "JobFinished");
      expect(finished).toHaveLength(1);
      const verified = await runCli(["replay", runDir, "--verify"]);
      expect(verified.code, `${verified.stdout}\n${verified.stderr}`).toBe(0);
    },
    CASE_MS,
  );

  it(
    "stopped mid-job: the job is recorded cancelled, the run ends, and the same command resumes it",
    async () => {
      const server = await startFakeOpenAiServer([], { fallback: { reply: xmlReply({ float0: 2.5 }, "scripted"), delayMs: 250 } });
      servers.push(server);
      const dir = tempDir();
      const config = join(dir, "config.yaml");
      writeFileSync(
        config,
        `mode: real\nllm: {model: test-model, base_url: "${server.baseURL}", api_key_env: FAKE_KEY}\nseeds: [1]\nmax_workers: 1\ntasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 4, ps_batches: 1}]\n`,
      );
      const runs = join(dir, "runs");
      const runDir = join(runs, "stop-mid-job");
      workers.push(...[await startWorker(redis.url, { env }), await startWorker(redis.url, { env })]);
      const run = startCoordinator(config, runs, "stop-mid-job");
      const log = () => (existsSync(join(runDir, "events.db")) ? eventsOf(runDir) : []);
      expect(await until(() => log().some((e) => e.type === "LlmCallCompleted"), 120_000, 100), run.output()).toBe(true);
      const victim = workers.find((w) => w.said().includes("attempt 1: started"))!;
      victim.child.kill("SIGTERM");
      expect(await until(() => run.child.exitCode !== null, 90_000, 100), `the run waited on the stopped worker's job\n${run.output()}\n${victim.said()}`).toBe(true);
      expect(await victim.exited).toBe(130);
      expect(victim.said()).toContain(": cancelled");
      const finished = eventsOf(runDir).filter((e) => e.type === "JobFinished");
      expect(finished.map((e) => e.data.status)).toEqual(["cancelled"]);
      const again = startCoordinator(config, runs, "stop-mid-job");
      expect(await until(() => again.child.exitCode !== null, 120_000, 100), again.output()).toBe(true);
      expect(again.child.exitCode, again.output()).toBe(0);
      expect(csvRows(join(runDir, "results.csv")).map((r) => r.status)).toEqual(["ok"]);
      const verified = await runCli(["replay", runDir, "--verify"]);
      expect(verified.code, `${verified.stdout}\n${verified.stderr}`).toBe(0);
    },
    CASE_MS,
  );
});
