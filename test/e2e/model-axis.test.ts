/**
 * Models as a matrix axis (`llm: {model: [a, b]}`): each job calls its own model over HTTP, is
 * priced and recorded under it, and every report names it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli, tempDir } from "../support/cli.js";
import { runCliAsync } from "../support/crash-harness.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fake-openai-server.js";
import { csvRows, eventsOf } from "../support/run-dir.js";
import { xmlReply } from "../support/scripted-llm.js";

const servers: FakeOpenAiServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const KEY = "sk-model-axis";

describe("models as a matrix axis", () => {
  it("mode real: every job calls its own model; results, leaderboard, aggregate and summary say which", async () => {
    // model-a proposes the optimum (3.0), model-b a worse value: the scores show which model answered
    // (numeric_param's float is `float0` in its traced graph).
    const server = await startFakeOpenAiServer([], { fallback: (body) => xmlReply({ float0: body.model === "model-a" ? 3.0 : 2.0 }, `I am ${String(body.model)}`) });
    servers.push(server);
    const dir = tempDir();
    const config = join(dir, "models.yaml");
    writeFileSync(
      config,
      [
        "mode: real",
        `llm: {model: [model-a, model-b], base_url: "${server.baseURL}", api_key_env: FAKE_KEY}`,
        "pricing: {model-a: {input: 1.0, output: 2.0}, model-b: {input: 10.0, output: 20.0}}",
        "seeds: [1, 2]",
        "tasks: [internal:numeric_param]",
        "trainers:",
        "  - id: PrioritySearch",
        "    params_variants: [{ps_steps: 1}]",
        "",
      ].join("\n"),
    );
    const r = await runCliAsync(["run", "--config", config, "--runs-dir", dir, "--run-id", "models"], {
      cwd: REPO_ROOT,
      env: { ...process.env, FAKE_KEY: KEY, OPENAI_API_KEY: "" },
      timeoutMs: 60_000,
    });
    expect(r.code, r.stderr).toBe(0);

    // Both models were asked: a preflight each, then each job's four calls.
    const asked = server.received.map((q) => q.body.model);
    expect(asked.filter((m) => m === "model-a")).toHaveLength(1 + 2 * 4);
    expect(asked.filter((m) => m === "model-b")).toHaveLength(1 + 2 * 4);
    expect(asked.every((m) => m === "model-a" || m === "model-b")).toBe(true);

    const runDir = join(dir, "models");
    const rows = csvRows(join(runDir, "results.csv"));
    expect(rows.map((row) => [row.llm_model, row.seed, row.status])).toEqual([
      ["model-a", "1", "ok"],
      ["model-a", "2", "ok"],
      ["model-b", "1", "ok"],
      ["model-b", "2", "ok"],
    ]);
    expect(new Set(rows.map((row) => row.job_id)).size).toBe(4);
    expect(rows.filter((row) => row.llm_model === "model-a").map((row) => row.score_val)).toEqual(["0.0", "0.0"]);
    expect(rows.filter((row) => row.llm_model === "model-b").map((row) => row.score_val)).toEqual(["-1.0", "-1.0"]);
    // The agent follows the job's model; each model's price applies to its own calls.
    expect(rows.map((row) => row.llm_agent_model)).toEqual(rows.map((row) => row.llm_model));
    const price = { "model-a": [1, 2], "model-b": [10, 20] } as const;
    for (const row of rows) {
      const [input, output] = price[row.llm_model as keyof typeof price];
      expect(Number(row.cost_usd), row.job_id).toBeCloseTo((Number(row.prompt_tokens) * input + Number(row.completion_tokens) * output) / 1e6, 12);
    }

    // The log: every call of a job names the job's model.
    const modelOfJob = new Map(rows.map((row) => [row.job_id, row.llm_model]));
    const started = eventsOf(runDir).filter((e) => e.type === "LlmCallStarted");
    expect(started).toHaveLength(16);
    for (const call of started) expect(call.data.model).toBe(modelOfJob.get(call.job_id!));

    const leaderboard = csvRows(join(runDir, "leaderboard.csv"));
    expect(leaderboard.map((row) => [row.rank, row.llm_model, row.score_val])).toEqual([
      ["1", "model-a", "0.0"],
      ["2", "model-b", "-1.0"],
    ]);
    const aggregate = csvRows(join(runDir, "aggregate.csv"));
    expect(aggregate.map((row) => [row.llm_model, row.n, row.score_mean])).toEqual([
      ["model-a", "2", "0.0"],
      ["model-b", "2", "-1.0"],
    ]);
    const summary = JSON.parse(readFileSync(join(runDir, "summary.json"), "utf8")) as {
      aggregates: { llm_model: string }[];
      llm_by_model: Record<string, { calls: number }>;
      llm_preflight: { calls: number };
    };
    expect(summary.aggregates.map((a) => a.llm_model)).toEqual(["model-a", "model-b"]);
    expect(summary.llm_by_model["model-a"]!.calls).toBe(8);
    expect(summary.llm_by_model["model-b"]!.calls).toBe(8);
    expect(summary.llm_preflight.calls).toBe(2);

    const manifest = JSON.parse(readFileSync(join(runDir, "meta", "manifest.json"), "utf8")) as { jobs: { job_id: string; llm_model: string; llm: { llm_model: string } }[] };
    expect(manifest.jobs.map((j) => [j.job_id, j.llm_model, j.llm.llm_model])).toEqual(rows.map((row) => [row.job_id, row.llm_model, row.llm_model]));

    // The reports are projections of the log: replay rebuilds them with the models in place.
    const before = readFileSync(join(runDir, "results.csv"), "utf8");
    expect((await runCli(["replay", runDir])).code).toBe(0);
    expect(readFileSync(join(runDir, "results.csv"), "utf8")).toBe(before);
  });

  it("mode stub: distinct jobs per model, the single-model run keeps its reference job id", async () => {
    const dir = tempDir();
    const two = join(dir, "two.yaml");
    writeFileSync(two, "tasks: [internal:numeric_param]\nps_steps: 1\nllm: {model: [model-a, model-b]}\n");
    const r = await runCli(["run", "--config", two, "--runs-dir", dir, "--run-id", "two"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\(seed=123, model=model-a\)/);
    const rows = csvRows(join(dir, "two", "results.csv"));
    expect(rows.map((row) => [row.job_id, row.llm_provider, row.llm_model])).toEqual([
      ["42dbe1ee9a0a", "stub", "model-a"],
      ["beafb1974b53", "stub", "model-b"],
    ]);
    // The stub stands in for both models: the same seed gives the same score.
    expect(rows[0]!.score_val).toBe(rows[1]!.score_val);

    const one = join(dir, "one.yaml");
    writeFileSync(one, "tasks: [internal:numeric_param]\nps_steps: 1\nllm: {model: [model-a]}\n");
    expect((await runCli(["run", "--config", one, "--runs-dir", dir, "--run-id", "one"])).code).toBe(0);
    const [row] = csvRows(join(dir, "one", "results.csv"));
    expect([row!.job_id, row!.llm_model]).toEqual(["806f391306ae", "stub"]);
    // Every report has a model column; a stub run's leaderboard rows say what its scores mean.
    expect(csvRows(join(dir, "one", "leaderboard.csv"))[0]).toMatchObject({ llm_model: "stub", note: expect.stringMatching(/^mode stub: no model was called/) });
  });
});
