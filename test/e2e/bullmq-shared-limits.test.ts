/**
 * A model's `max_concurrency` holds for a bullmq run's workers together, not per worker: two
 * workers, each free to run two jobs at once, never have more than one request at the provider
 * between them when the config says 1 (each worker's own limiter alone would let two through).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli, tempDir } from "../support/cli.js";
import { startWorkers, stopWorkers, type WorkerProcess } from "../support/bullmq-workers.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fake-openai-server.js";
import { startRedis, type RedisServer } from "../support/redis-server.js";
import { csvRows, singleRunDir } from "../support/run-dir.js";
import { xmlReply } from "../support/scripted-llm.js";

let redis: RedisServer;
let server: FakeOpenAiServer;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
  // Slow enough answers that the two workers' jobs overlap in time.
  server = await startFakeOpenAiServer([], { fallback: { reply: xmlReply({ float0: 1 }), delayMs: 300 } });
});
afterAll(async () => {
  await stopWorkers(workers);
  await server?.close();
  await redis?.stop();
});

it("two workers of concurrency 2 send one request at a time when max_concurrency is 1", async () => {
  const env = { FAKE_KEY: "sk-shared-limits" };
  workers.push(...(await startWorkers(2, redis.url, { concurrency: 2, env })));
  const dir = tempDir();
  const config = join(dir, "c.yaml");
  writeFileSync(
    config,
    `mode: real\nllm: {model: test-model, base_url: "${server.baseURL}", api_key_env: FAKE_KEY, max_concurrency: 1}\nseeds: [1, 2, 3, 4]\nmax_workers: 4\n` +
      "tasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 1, ps_batches: 1}]\n",
  );
  const r = await runCli(["run", "--config", config, "--runs-dir", dir, "--executor", "bullmq", "--redis", redis.url], { env });
  expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
  expect(csvRows(join(singleRunDir(dir), "results.csv")).map((row) => row.status)).toEqual(["ok", "ok", "ok", "ok"]);
  // Both workers ran jobs, so their requests could have overlapped.
  for (const w of workers) expect(w.said(), "each worker ran a job").toContain("attempt 1: ok");
  expect(server.received.length).toBeGreaterThan(4);
  expect(server.peakInFlight).toBe(1);
}, 420_000);
