/**
 * The run's budget holds for a bullmq run's workers together: the coordinator admits each request
 * against every worker's spending (each worker's own ledger alone let three workers spend three
 * budgets). Against a scripted server that bills as a provider does, three workers never pass
 * max_tokens_per_run; one job at a time, the jobs end as under the local executor (the same
 * statuses, scores and budget feedback), and the run says the same about the jobs it left.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCli, tempDir } from "../support/cli.js";
import { startWorkers, stopWorkers, type WorkerProcess } from "../support/bullmq-workers.js";
import { startFakeOpenAiServer, type FakeOpenAiServer, type ServerStep } from "../support/fake-openai-server.js";
import { startRedis, type RedisServer } from "../support/redis-server.js";
import { csvRows } from "../support/run-dir.js";
import { billedUsage, deterministicReply } from "../support/scripted-llm.js";

const CAP = 15_000;
const env = { FAKE_KEY: "sk-run-budget-secret", OPENAI_API_KEY: "" };
let redis: RedisServer;
const workers: WorkerProcess[] = [];
const servers: FakeOpenAiServer[] = [];

beforeAll(async () => {
  redis = await startRedis();
  workers.push(...(await startWorkers(3, redis.url, { env })));
}, 120_000);
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
afterAll(async () => {
  await stopWorkers(workers);
  await redis?.stop();
});



async function server(): Promise<FakeOpenAiServer> {
  const s = await startFakeOpenAiServer([], { fallback: ((b: Record<string, unknown>) => deterministicReply(b)) as ServerStep, usage: billedUsage });
  servers.push(s);
  return s;
}

const serverBilled = (s: FakeOpenAiServer) => s.received.reduce((sum, r) => sum + billedUsage(r.body).total_tokens, 0);

/** 8 jobs of about 12 requests (~12,000 tokens) each under a run budget of 15,000: most are never started. */
function config(dir: string, s: FakeOpenAiServer, maxWorkers: number): string {
  const path = join(dir, `real-${maxWorkers}.yaml`);
  writeFileSync(
    path,
    `mode: real\nllm: {model: test-model, base_url: "${s.baseURL}", api_key_env: FAKE_KEY}\npricing: {test-model: {input: 2, output: 10}}\noptimizer_kwargs: {max_tokens: 64}\n` +
      `tasks: [internal:numeric_param]\nseeds: [1, 2, 3, 4, 5, 6, 7, 8]\nmax_workers: ${maxWorkers}\nbudget: {max_tokens_per_run: ${CAP}}\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 4}]\n`,
  );
  return path;
}

const COMPARED = ["job_id", "status", "score_val", "best_score", "total_tokens", "feedback"];

interface Outcome {
  readonly code: number | null;
  readonly billed: number;
  readonly rows: Record<string, string>[];
  readonly jobs: { job_id: string; status: string; skip_reason?: string }[];
  readonly out: string;
}

async function budgetRun(maxWorkers: number, extra: readonly string[]): Promise<Outcome> {
  const s = await server();
  const dir = tempDir();
  const r = await runCli(["run", "--config", config(dir, s, maxWorkers), "--runs-dir", dir, "--run-id", "a", ...extra], { env });
  const rows = csvRows(join(dir, "a", "results.csv"))
    .map((row) => Object.fromEntries(COMPARED.map((k) => [k, row[k] ?? ""])))
    .sort((a, b) => a.job_id!.localeCompare(b.job_id!));
  const manifest = JSON.parse(readFileSync(join(dir, "a", "meta", "manifest.json"), "utf8")) as { jobs: Outcome["jobs"] };
  const jobs = manifest.jobs.map((j) => ({ job_id: j.job_id, status: j.status, ...(j.skip_reason !== undefined ? { skip_reason: j.skip_reason } : {}) })).sort((a, b) => a.job_id.localeCompare(b.job_id));
  return { code: r.code, billed: serverBilled(s), rows, jobs, out: `${r.stdout}\n${r.stderr}` };
}

describe("the run's budget under --executor bullmq", () => {
  it("three workers never pass max_tokens_per_run; one job at a time, the jobs end as under the local executor", async () => {
    const local = await budgetRun(1, []);
    expect(local.code, local.out).toBe(3);
    expect(local.billed).toBeLessThanOrEqual(CAP);
    expect(local.jobs.some((j) => j.status === "budget_exhausted"), local.out).toBe(true);

    const remote = await budgetRun(1, ["--executor", "bullmq", "--redis", redis.url]);
    expect(remote.billed, remote.out).toBeLessThanOrEqual(CAP);
    expect(remote.code, remote.out).toBe(3);
    expect(remote.rows).toEqual(local.rows);
    expect(remote.jobs).toEqual(local.jobs);
    expect(remote.out).toContain(`Budget: max_tokens_per_run ${CAP}: ${remote.billed} spent`);
  }, 420_000);

  it("with the jobs running at once on three workers, the run stops before its budget: the jobs left say why", async () => {
    const remote = await budgetRun(6, ["--executor", "bullmq", "--redis", redis.url]);
    expect(remote.billed, remote.out).toBeLessThanOrEqual(CAP);
    expect(remote.code, `${remote.out}\n${JSON.stringify(remote.rows, null, 1)}\n${workers.map((w) => w.said()).join("\n")}`).toBe(3);
    const ran = remote.jobs.filter((j) => j.status !== "not_executed");
    // More than one job started (they overlapped), and every job that ran ended by the budget or finished.
    expect(ran.length).toBeGreaterThan(1);
    for (const j of ran) expect(["ok", "budget_exhausted"]).toContain(j.status);
    for (const j of remote.jobs.filter((j) => j.status === "not_executed")) expect(j.skip_reason).toMatch(/^run_budget_spent: run token budget: /);
  }, 420_000);
});
