/**
 * One `trace-bench worker` serving two runs at once evaluates each run's jobs with that run's own
 * evaluation settings: a run in mode stub (terminal_bench scores its stub 0, status ok) and a run
 * in mode real (no Harbor on PATH: each job fails, saying so) end, job for job, as each does under the
 * local executor. Both runs queue their first job before the worker starts, so it builds both
 * runs' services before most jobs run (a worker that kept one run's settings for both got the
 * first run's later jobs wrong).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Queue } from "bullmq";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCli, tempDir } from "../support/cli.js";
import { startWorker, stopWorkers, type WorkerProcess } from "../support/bullmq-workers.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fake-openai-server.js";
import { startRedis, type RedisServer } from "../support/redis-server.js";
import { csvRows } from "../support/run-dir.js";
import { TICKET_QUEUE } from "../../adapters/bullmq/bullmq-transport.js";

// No Harbor on PATH: a terminal_bench job in mode real fails, naming it.
const env = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, FAKE_KEY: "sk-two-runs-secret", OPENAI_API_KEY: "" };
let redis: RedisServer;
let server: FakeOpenAiServer;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
  server = await startFakeOpenAiServer([], { fallback: "TERMINATE" });
}, 60_000);
afterEach(async () => {
  await stopWorkers(workers);
});
afterAll(async () => {
  await server?.close();
  await redis?.stop();
});

const SEEDS = "seeds: [1, 2, 3]\nmax_workers: 1\ntasks: [terminal_bench:regex-log]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 1}]\n";

function configs(dir: string): { stub: string; real: string } {
  const stub = join(dir, "stub.yaml");
  const real = join(dir, "real.yaml");
  writeFileSync(stub, `mode: stub\n${SEEDS}`);
  writeFileSync(real, `mode: real\nllm: {model: test-model, base_url: "${server.baseURL}", api_key_env: FAKE_KEY}\n${SEEDS}`);
  return { stub, real };
}

interface Outcome {
  readonly rows: Record<string, string>[];
  readonly jobs: { job_id: string; status: string }[];
}

const COMPARED = ["job_id", "seed", "status", "score_val_initial", "score_val_final", "score_val", "feedback"];

function outcome(runDir: string): Outcome {
  const rows = csvRows(join(runDir, "results.csv"))
    .map((row) => Object.fromEntries(COMPARED.map((k) => [k, row[k] ?? ""])))
    .sort((a, b) => a.job_id!.localeCompare(b.job_id!));
  const manifest = JSON.parse(readFileSync(join(runDir, "meta", "manifest.json"), "utf8")) as { jobs: { job_id: string; status: string }[] };
  const jobs = manifest.jobs.map((j) => ({ job_id: j.job_id, status: j.status })).sort((a, b) => a.job_id.localeCompare(b.job_id));
  return { rows, jobs };
}

/** Resolves once `n` tickets wait in the queue (no worker yet), polling Redis. */
async function ticketsWaiting(n: number, timeoutMs: number): Promise<void> {
  const queue = new Queue(TICKET_QUEUE, { connection: { host: "127.0.0.1", port: redis.port } });
  try {
    const deadline = Date.now() + timeoutMs;
    while ((await queue.getWaitingCount()) < n) {
      if (Date.now() > deadline) throw new Error(`fewer than ${n} tickets queued within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await queue.close();
  }
}

describe("one bullmq worker serving two runs at once", () => {
  it("applies each run's own evaluation settings: each run ends as under the local executor", async () => {
    const dir = tempDir();
    const { stub, real } = configs(dir);

    const local = join(dir, "local");
    const [localStub, localReal] = await Promise.all([
      runCli(["run", "--config", stub, "--runs-dir", local, "--run-id", "stub"], { env }),
      runCli(["run", "--config", real, "--runs-dir", local, "--run-id", "real"], { env }),
    ]);
    expect(localStub.code, localStub.stderr).toBe(0);
    expect(localReal.code, localReal.stderr).not.toBeNull();
    const expectedStub = outcome(join(local, "stub"));
    const expectedReal = outcome(join(local, "real"));
    // The settings make a difference the comparison can see.
    expect(expectedStub.jobs.map((j) => j.status)).toEqual(["ok", "ok", "ok"]);
    expect(expectedReal.jobs.map((j) => j.status)).toEqual(["failed", "failed", "failed"]);
    for (const row of expectedReal.rows) expect(row.feedback).toContain("harbor");

    const remote = join(dir, "remote");
    const flags = ["--executor", "bullmq", "--redis", redis.url];
    const runs = Promise.all([
      runCli(["run", "--config", stub, "--runs-dir", remote, "--run-id", "stub", ...flags], { env }),
      runCli(["run", "--config", real, "--runs-dir", remote, "--run-id", "real", ...flags], { env }),
    ]);
    await ticketsWaiting(2, 60_000);
    workers.push(await startWorker(redis.url, { concurrency: 2, env }));
    const [remoteStub, remoteReal] = await runs;
    const said = `${remoteStub.stderr}\n${remoteReal.stderr}\n--- worker ---\n${workers[0]!.said()}`;
    expect(remoteStub.code, said).toBe(localStub.code);
    expect(remoteReal.code, said).toBe(localReal.code);
    expect(outcome(join(remote, "stub")), said).toEqual(expectedStub);
    expect(outcome(join(remote, "real")), said).toEqual(expectedReal);
  }, 300_000);
});
