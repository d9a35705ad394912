/**
 * `--executor bullmq` computes what a local run computes: the same config gives the same
 * results.csv (job ids, statuses, scores) run here and run by 1, 2 and 3 `trace-bench worker`s
 * through a real redis-server on loopback, in stub mode and against a scripted OpenAI-compatible
 * server; `replay --verify` passes on every run dir.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCli, tempDir } from "../support/cli.js";
import { startWorkers, stopWorkers, type WorkerProcess } from "../support/bullmq-workers.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fake-openai-server.js";
import { startRedis, type RedisServer } from "../support/redis-server.js";
import { csvRows, singleRunDir } from "../support/run-dir.js";
import { xmlReply } from "../support/scripted-llm.js";

let redis: RedisServer;
const workers: WorkerProcess[] = [];
const servers: FakeOpenAiServer[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await stopWorkers(workers);
  for (const s of servers.splice(0)) await s.close();
});
afterAll(async () => {
  await redis?.stop();
});

/** What must be equal between executors: each job's identity, status and scores. */
const COMPARED = ["job_id", "task_id", "trainer_id", "seed", "status", "score_val_initial", "score_val_final", "score_val", "score_test", "best_score"];

function comparable(runDir: string): Record<string, string>[] {
  return csvRows(join(runDir, "results.csv"))
    .map((row) => Object.fromEntries(COMPARED.filter((k) => k in row).map((k) => [k, row[k]!])))
    .sort((a, b) => a.job_id!.localeCompare(b.job_id!));
}

async function runAndVerify(config: string, extra: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const runs = tempDir();
  const r = await runCli(["run", "--config", config, "--runs-dir", runs, ...extra], { env });
  expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
  const runDir = singleRunDir(runs);
  const verified = await runCli(["replay", runDir, "--verify"]);
  expect(verified.code, `${verified.stdout}\n${verified.stderr}`).toBe(0);
  return runDir;
}

const STUB_CONFIG = `mode: stub
seeds: [1, 2, 3, 4]
max_workers: 3
tasks: [internal:numeric_param]
trainers:
  - id: PrioritySearch
    params_variants: [{ps_steps: 2, ps_batches: 1}]
`;

// Each case runs the CLI several times and starts up to three workers: minutes on a busy machine.
const CASE_MS = 420_000;

describe("the same results under local and bullmq", () => {
  it(
    "stub mode, with 1, 2 and 3 workers",
    async () => {
      const config = join(tempDir(), "stub.yaml");
      writeFileSync(config, STUB_CONFIG);
      const local = comparable(await runAndVerify(config, []));
      expect(local.map((r) => r.status)).toEqual(["ok", "ok", "ok", "ok"]);
      for (const n of [1, 2, 3]) {
        // One more worker each round: 1, then 2, then 3 share the jobs.
        workers.push(...(await startWorkers(1, redis.url)));
        expect(workers).toHaveLength(n);
        const remote = comparable(await runAndVerify(config, ["--executor", "bullmq", "--redis", redis.url]));
        expect(remote, `${n} worker(s)`).toEqual(local);
      }
      expect(workers.some((w) => w.said().includes("attempt 1: ok"))).toBe(true);
    },
    CASE_MS,
  );

  it(
    "against a scripted LLM server, with 1, 2 and 3 workers: the same calls, none sent twice",
    async () => {
      // The reply depends on the request alone, so the order jobs reach the server in changes nothing.
      const server = await startFakeOpenAiServer([], { fallback: (body) => xmlReply({ float0: (JSON.stringify(body.messages).length % 7) - 3 }, "scripted") });
      servers.push(server);
      const config = join(tempDir(), "real.yaml");
      writeFileSync(
        config,
        `mode: real\nllm: {model: test-model, base_url: "${server.baseURL}", api_key_env: FAKE_KEY}\nseeds: [1, 2, 3]\nmax_workers: 3\ntasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 2, ps_batches: 1}]\n`,
      );
      const env = { FAKE_KEY: "sk-parity-secret" };
      const local = comparable(await runAndVerify(config, [], env));
      const localRequests = server.received.length;
      for (const n of [1, 2, 3]) {
        workers.push(...(await startWorkers(1, redis.url, { env })));
        const before = server.received.length;
        const remote = comparable(await runAndVerify(config, ["--executor", "bullmq", "--redis", redis.url], env));
        expect(remote, `${n} worker(s)`).toEqual(local);
        // The same requests as the local run (its preflight included): none sent twice.
        expect(server.received.length - before, `${n} worker(s)`).toBe(localRequests);
      }
    },
    CASE_MS,
  );
});
