/**
 * Issue 34 through the real CLI: the original's configs/m3_multiobjective.yaml (a test fixture;
 * 3 tasks × 2 objective modes × 3 trainers = 18 jobs) runs in mode stub and in mode real against
 * a scripted server on 127.0.0.1; each task's candidates carry its own metrics; the GSM8K
 * learner's calls are the agent's, and its token metrics are the usage the server sent; every run
 * verifies. The two OpenTrace examples run too.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GSM8K_EMBEDDED_EXAMPLES } from "../../adapters/tasks/internal/gsm8k-examples.js";
import { REPO_ROOT, tempDir } from "../support/cli.js";
import { describeRun, runCliAsync } from "../support/crash-harness.js";
import { fakeOpenAiServers } from "../support/fake-openai-server.js";
import { csvRows, eventsOf, type EventRow } from "../support/run-dir.js";

const FIXTURE = join(REPO_ROOT, "test", "fixtures", "configs", "original", "m3_multiobjective.yaml");
const KEY = "sk-m3-test-key";
const server = fakeOpenAiServers();

const METRICS: Record<string, string[]> = {
  "internal:multiobjective_convex": ["base_loss", "reg_loss"],
  "internal:multiobjective_bbeh": ["accuracy", "execution_time_s"],
  "internal:multiobjective_gsm8k": ["error", "tokens_in", "tokens_out"],
};

/** The fixture as it is, in the given mode (and with the scripted server as its LLM in mode real). */
function m3Config(dir: string, mode: "stub" | "real", baseURL = ""): string {
  const original = readFileSync(FIXTURE, "utf8");
  expect(original).toMatch(/^mode: real$/m);
  const llm = mode === "real" ? `\nllm: {model: test-model, base_url: "${baseURL}", api_key_env: FAKE_KEY}\n` : "";
  const path = join(dir, `m3-${mode}.yaml`);
  writeFileSync(path, original.replace(/^mode: real$/m, `mode: ${mode}`) + llm);
  return path;
}

const run = (args: readonly string[]) => runCliAsync(args, { cwd: REPO_ROOT, env: { ...process.env, FAKE_KEY: KEY, OPENAI_API_KEY: "" }, timeoutMs: 1_500_000 });

/** Every job ok, six per task, the task's own metrics on every candidate, and `replay --verify` passes. */
async function expectM3Run(runDir: string): Promise<EventRow[]> {
  const rows = csvRows(join(runDir, "results.csv"));
  expect(rows).toHaveLength(18);
  for (const row of rows) expect(row.status, `${row.task_id} ${row.trainer_id}: ${row.feedback.slice(0, 300)}`).toBe("ok");
  for (const task of Object.keys(METRICS)) expect(rows.filter((r) => r.task_id === task)).toHaveLength(6);
  const events = eventsOf(runDir);
  const rowTask = new Map(rows.map((r) => [r.job_id, r.task_id]));
  const candidates = events.filter((e) => e.type === "CandidateEvaluated");
  expect(candidates.length).toBeGreaterThan(18);
  for (const e of candidates) {
    const scores = (e.data as { scores?: Record<string, number> }).scores ?? {};
    expect(Object.keys(scores).sort()).toEqual([...METRICS[rowTask.get(String(e.job_id))!]!].sort());
  }
  const verify = await run(["replay", runDir, "--verify"]);
  expect(verify.code, describeRun("replay --verify", verify)).toBe(0);
  return events;
}

const gsm8kQuestions = new Set(GSM8K_EMBEDDED_EXAMPLES.map((e) => e.question));
const isAgentCall = (body: Record<string, unknown>) => {
  const messages = body.messages as { role: string; content: string }[];
  return messages.length === 2 && gsm8kQuestions.has(messages[1]!.content);
};

describe("m3_multiobjective.yaml (issue 34)", () => {
  it("runs in mode stub: 18 jobs ok, each task's metrics on its candidates, the learner's calls are the agent's, replay verifies", async () => {
    const dir = tempDir();
    const r = await run(["run", "--config", m3Config(dir, "stub"), "--runs-dir", dir, "--run-id", "stub"]);
    expect(r.code, describeRun("run", r)).toBe(0);
    const events = await expectM3Run(join(dir, "stub"));
    const rows = csvRows(join(dir, "stub", "results.csv"));
    const gsm8kJobs = new Set(rows.filter((row) => row.task_id === "internal:multiobjective_gsm8k").map((row) => row.job_id));
    const agentCalls = events.filter((e) => e.type === "LlmCallStarted" && (e.data as { role?: string }).role === "agent");
    expect(agentCalls.length).toBeGreaterThanOrEqual(6 * 10);
    expect(new Set(agentCalls.map((e) => String(e.job_id)))).toEqual(gsm8kJobs);
    // The convex task's initial candidate is the original's invalid one; BBEH's initial program answers all 15.
    for (const row of rows) {
      if (row.task_id === "internal:multiobjective_convex") expect(row.score_val_initial).toBe("-1.0");
      if (row.task_id === "internal:multiobjective_bbeh") expect(row.score_val_initial).toBe("1.0");
    }
  }, 1_600_000);

  it("runs in mode real against a scripted server: the learner's token metrics are the usage the server sent for its calls", async () => {
    const dir = tempDir();
    const sent = new Map<string, { prompt: number; completion: number }>();
    const s = await server([], {
      // GSM8K's answer for the first embedded problem is 72; every other question gets it wrong.
      fallback: (body) => (isAgentCall(body) ? "Let me think.\n#### 72" : "TERMINATE"),
      usage: (body, n) => {
        const prompt = 40 + (JSON.stringify(body.messages).length % 97);
        const completion = 5 + (n % 7);
        if (isAgentCall(body)) sent.set(`${prompt}/${completion}`, { prompt, completion });
        return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
      },
    });
    const r = await run(["run", "--config", m3Config(dir, "real", s.baseURL), "--runs-dir", dir, "--run-id", "real"]);
    expect(r.code, describeRun("run", r)).toBe(0);
    const events = await expectM3Run(join(dir, "real"));
    for (const q of s.received) expect(q.authorization).toBe(`Bearer ${KEY}`);
    const agentRequests = s.received.filter((q) => isAgentCall(q.body));
    const agentCalls = events.filter((e) => e.type === "LlmCallCompleted" && (e.data as { role?: string }).role === "agent");
    expect(agentCalls).toHaveLength(agentRequests.length);
    const rows = csvRows(join(dir, "real", "results.csv"));
    const gsm8kJobs = new Set(rows.filter((row) => row.task_id === "internal:multiobjective_gsm8k").map((row) => row.job_id));
    let checked = 0;
    for (const e of events) {
      if (e.type !== "CandidateEvaluated" || !gsm8kJobs.has(String(e.job_id))) continue;
      const { scores } = e.data as { scores: { error: number; tokens_in: number; tokens_out: number } };
      // A candidate's metrics are means over its examples; with batch 1 they are one call's usage.
      if ((e.data as { example_scores: number[] }).example_scores.length !== 1) continue;
      expect(sent.has(`${scores.tokens_in}/${scores.tokens_out}`), JSON.stringify(scores)).toBe(true);
      checked += 1;
    }
    expect(checked).toBeGreaterThan(0);
  }, 1_600_000);

  it("the two OpenTrace examples run in mode stub with the original's initial scores, and replay verifies", async () => {
    const dir = tempDir();
    const config = join(dir, "opentrace.yaml");
    writeFileSync(
      config,
      "mode: stub\nseeds: [3]\ntasks: [trace_examples:opentrace_greeting, trace_examples:opentrace_train_single_node]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 2}]\n",
    );
    const r = await run(["run", "--config", config, "--runs-dir", dir, "--run-id", "ot"]);
    expect(r.code, describeRun("run", r)).toBe(0);
    const rows = csvRows(join(dir, "ot", "results.csv"));
    expect(rows.map((row) => [row.task_id, row.status, row.score_val_initial])).toEqual([
      ["trace_examples:opentrace_greeting", "ok", "1.0"],
      ["trace_examples:opentrace_train_single_node", "ok", "-3.0"],
    ]);
    const verify = await run(["replay", join(dir, "ot"), "--verify"]);
    expect(verify.code, describeRun("replay --verify", verify)).toBe(0);
  }, 600_000);
});

describe("internal:multiobjective_bbeh in mode stub", () => {
  it("repeats itself: two runs record the same candidates with the same metrics (CPU time kept to hundredths)", async () => {
    const dir = tempDir();
    const config = join(dir, "bbeh.yaml");
    writeFileSync(
      config,
      [
        "mode: stub",
        "seeds: [7]",
        "tasks:",
        "  - {id: internal:multiobjective_bbeh, eval_kwargs: {objective_mode: pareto, n_train: 3}}",
        "trainers:",
        "  - id: BeamsearchAlgorithm",
        "    params_variants: [{beam_width: 2, num_proposals: 2, max_depth: 2, batch_size: 1}]",
        "",
      ].join("\n"),
    );
    const records: unknown[] = [];
    for (const id of ["one", "two"]) {
      const r = await run(["run", "--config", config, "--runs-dir", dir, "--run-id", id]);
      expect(r.code, describeRun("run", r)).toBe(0);
      const candidates = eventsOf(join(dir, id)).filter((e) => e.type === "CandidateEvaluated");
      expect(candidates.length).toBeGreaterThan(1);
      const [row] = csvRows(join(dir, id, "results.csv"));
      records.push([row!.score_val_initial, row!.score_val_final, candidates.map((e) => [e.data.candidate, e.data.scores, e.data.example_scores])]);
    }
    expect(records[1]).toEqual(records[0]);
  }, 600_000);
});
