/**
 * framework dspy where Python's dspy imports (here the stand-in of test/support/dspy-stand-in on
 * PYTHONPATH: PyPI cannot be reached): `hf:hotpot_qa` with the original's DSPy agent, in mode real
 * against a scripted provider on 127.0.0.1. Each example runs the DSPy program in the python agent
 * worker pool with dspy's LM pointed at the job's loopback audit endpoint: its requests (in DSPy's
 * chat format) are recorded with role agent and a slot, counted by `tokens --by role`, sent on
 * with the configured key, and the guide scores DSPy's answers. DSPyTrainer on the same task is
 * skipped, before any call, saying that DSPy's optimizers are not run yet.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, tempDir } from "../support/cli.js";
import { describeRun, runCliAsync } from "../support/crash-harness.js";
import { fakeOpenAiServers, type ReceivedRequest } from "../support/fake-openai-server.js";
import { HOTPOT_TRAIN, HOTPOT_VALIDATION, writeJsonl } from "../support/hf-datasets.js";
import { csvRows, eventsOf } from "../support/run-dir.js";

const server = fakeOpenAiServers();
const KEY = "sk-dspy-agent-test-key";
const DSPY_STAND_IN = join(REPO_ROOT, "test", "support", "dspy-stand-in");

const promptOf = (body: Record<string, unknown>) => (body.messages as { content: string }[]).map((m) => m.content).join("\n");
/** A request from DSPy's Predict: its output-field marker and the signature's instructions. */
const isDspy = (r: ReceivedRequest) => promptOf(r.body).includes("`[[ ## answer ## ]]`");
/** Right about the Quill River (h2, validation), wrong about Orchid Press (h3, test). */
const reply = (body: Record<string, unknown>): string => {
  const prompt = promptOf(body);
  if (prompt.includes("[[ ## question ## ]]\nIs the Quill River longer")) return "[[ ## answer ## ]]\nYes\n\n[[ ## completed ## ]]";
  if (prompt.includes("[[ ## question ## ]]\nWho founded Orchid Press?")) return "[[ ## answer ## ]]\nLena Ortiz\n\n[[ ## completed ## ]]";
  if (prompt.includes("[[ ## question ## ]]\nWhich city")) return "[[ ## answer ## ]]\nValdora\n\n[[ ## completed ## ]]";
  return "OK";
};

function writeConfig(dir: string, baseURL: string): string {
  const data = join(dir, "data");
  writeJsonl(join(data, "hotpotqa", "hotpot_qa", "distractor", "train.jsonl"), HOTPOT_TRAIN);
  writeJsonl(join(data, "hotpotqa", "hotpot_qa", "distractor", "validation.jsonl"), HOTPOT_VALIDATION);
  const path = join(dir, "config.yaml");
  writeFileSync(
    path,
    `mode: real\nllm: {model: test-model, base_url: "${baseURL}", api_key_env: FAKE_KEY}\npricing: {test-model: {input: 2, output: 10}}\nseeds: [1]\n` +
      `tasks:\n  - id: hf:hotpot_qa\n    eval_kwargs: {framework: dspy, initial_instructions: "Answer in a few words.", num_train: 1, num_validate: 1, num_test: 1, data_dir: ${JSON.stringify(data)}}\n` +
      "trainers:\n  - id: NoOpTrainer\n  - id: DSPyTrainer\n    params_variants: [{dspy_optimizer: copro, breadth: 2, depth: 1}]\n",
  );
  return path;
}

const env = { ...process.env, FAKE_KEY: KEY, OPENAI_API_KEY: "", PYTHONPATH: DSPY_STAND_IN, HF_HUB_CACHE: "/nonexistent-hub", TRACE_BENCH_HF_DATA_DIR: "" };
const run = (args: readonly string[]) => runCliAsync(args, { cwd: REPO_ROOT, env, timeoutMs: 240_000 });

describe("framework dspy with dspy importable", () => {
  it("runs the DSPy agent with its LM at the job's audit endpoint: calls recorded as role agent, counted, scored by the guide", async () => {
    const dir = tempDir();
    const s = await server([], { fallback: reply });
    const r = await run(["run", "--config", writeConfig(dir, s.baseURL), "--runs-dir", dir, "--run-id", "dspy"]);
    const runDir = join(dir, "dspy");
    const rows = csvRows(join(runDir, "results.csv"));
    const noop = rows.find((row) => row.trainer_id === "NoOpTrainer")!;
    expect(noop.status, `${noop.feedback}\n${describeRun("run", r)}`).toBe("ok");
    // The guide scored DSPy's answers: right on validation, wrong on test.
    expect(Number(noop.score_val_initial)).toBe(1);
    expect(Number(noop.score_test)).toBe(0);
    const dspyTrainer = rows.find((row) => row.trainer_id === "DSPyTrainer")!;
    expect(dspyTrainer.status).toBe("skipped");
    expect(dspyTrainer.feedback).toContain("DSPyTrainer: this build runs the task's DSPy agent (DSPyHotpotQAAgent) but not DSPy's optimizers (dspy_optimizer copro) yet");

    // Every request DSPy made reached the provider through the endpoint, with the configured key.
    const dspyRequests = s.received.filter(isDspy);
    expect(dspyRequests.length).toBeGreaterThanOrEqual(2);
    for (const q of s.received) expect(q.authorization).toBe(`Bearer ${KEY}`);
    for (const q of dspyRequests) expect(promptOf(q.body)).toContain("your objective is: \n        Answer in a few words.");

    const events = eventsOf(runDir);
    // The skipped job paid for nothing: no call of its own.
    expect(events.filter((e) => e.job_id === dspyTrainer.job_id && e.type === "LlmCallStarted")).toHaveLength(0);
    const agentStarted = events.filter((e) => e.type === "LlmCallStarted" && e.data.role === "agent");
    expect(agentStarted).toHaveLength(dspyRequests.length);
    for (const e of agentStarted) {
      expect(String(e.data.slot)).toMatch(/^\d+\/\d+\/0$/);
      expect(String(e.data.request_hash)).toMatch(/^[0-9a-f]{32}$/);
    }
    expect(events.filter((e) => e.type === "LlmCallCompleted" && e.data.role === "agent")).toHaveLength(dspyRequests.length);

    const audit = await run(["tokens", runDir, "--by", "role", "--json"]);
    expect(audit.code, describeRun("tokens --by role", audit)).toBe(0);
    const groups = (JSON.parse(audit.stdout) as { groups: { key: string; calls: { completed: number } }[] }).groups;
    expect(groups.find((g) => g.key === "agent")?.calls.completed).toBe(dspyRequests.length);

    const verify = await run(["replay", runDir, "--verify"]);
    expect(verify.code, describeRun("replay --verify", verify)).toBe(0);
  }, 400_000);
});
