/**
 * LLMJudge and OptoPrimeMulti end to end: `hf:gsm8k` from a data directory of hand-written rows,
 * trained by PrioritySearch with `optimizer: OptoPrimeMulti` and `guide: LLMJudge`, run by the
 * built CLI in mode real against a scripted server on 127.0.0.1 and in mode stub. The judge's
 * calls are logged with role judge and score the trainer's rollouts (the evaluations keep GSM8K's
 * rule); every OptoPrimeMulti step is two generation calls (temperatures 1 then 0) and one
 * best_of_n call shown both candidates, whose choice is what the agent then runs with;
 * `tokens --by role` counts each role as the server received it, and the run verifies.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, tempDir } from "../support/cli.js";
import { describeRun, runCliAsync } from "../support/crash-harness.js";
import { fakeOpenAiServers, type ReceivedRequest } from "../support/fake-openai-server.js";
import { csvRows, eventsOf } from "../support/run-dir.js";

const server = fakeOpenAiServers();
const KEY = "sk-judge-multi-test-key";

/** Made-up GSM8K-style rows (question, gold): two train, two validate, one test. */
const TRAIN = [
  ["Tom has 3 boxes of 4 pens. How many pens?", "12"],
  ["A cake costs $5. What do two cakes cost?", "10"],
  ["Sam reads 7 pages a day for 3 days. How many pages?", "21"],
  ["There are 9 birds and 4 fly off. How many stay?", "5"],
] as const;
const TEST = [["Ana has 6 apples and gets 6 more. How many apples?", "12"]] as const;

function writeData(dir: string): string {
  const folder = join(dir, "data", "openai", "gsm8k", "main");
  mkdirSync(folder, { recursive: true });
  const jsonl = (rows: readonly (readonly [string, string])[]) => rows.map(([q, a]) => JSON.stringify({ question: q, answer: `Work it out.\n#### ${a}` })).join("\n") + "\n";
  writeFileSync(join(folder, "train.jsonl"), jsonl(TRAIN));
  writeFileSync(join(folder, "test.jsonl"), jsonl(TEST));
  return join(dir, "data");
}

/** The prompt templates the two generation calls propose (by temperature); best_of_n picks the cold one. */
const HOT_TEMPLATE = "Write a poem, then the answer.\nQuestion:\n";
const COLD_TEMPLATE = "Give the final number last.\nQuestion:\n";
const proposal = (template: string, why: string) => JSON.stringify({ reasoning: why, answer: "", suggestion: { prompt_template: template } });
const HOT_REPLY = proposal(HOT_TEMPLATE, "hot");
const COLD_REPLY = proposal(COLD_TEMPLATE, "cold");

const messages = (body: Record<string, unknown>) => (body.messages as { role: string; content: string }[] | undefined) ?? [];
const systemOf = (r: ReceivedRequest) => messages(r.body)[0]?.content ?? "";
const textOf = (body: Record<string, unknown>) => messages(body).map((m) => m.content).join("\n");
const isPreflight = (r: ReceivedRequest) => textOf(r.body).includes("Reply with the word OK.");
const isSelection = (body: Record<string, unknown>) => textOf(body).includes("choosing the most promising one");
const isGeneration = (body: Record<string, unknown>) => !isSelection(body) && (messages(body)[0]?.content ?? "").includes("Reply in this JSON format");
const isJudge = (body: Record<string, unknown>) => textOf(body).includes("The student's answer is:");
const isAgent = (r: ReceivedRequest) => !isPreflight(r) && !isSelection(r.body) && !isGeneration(r.body) && !isJudge(r.body);

/** The agent's answers: right for Sam's pages, wrong for the birds (validation scores 0.5 by GSM8K's rule). */
function agentReply(body: Record<string, unknown>): string {
  const asked = textOf(body);
  if (asked.includes("Sam reads 7 pages")) return "7 pages times 3 days is 21";
  if (asked.includes("9 birds")) return "9 and 4 make 13";
  if (asked.includes("Tom has 3 boxes")) return "The answer is 12";
  if (asked.includes("A cake costs")) return "It costs 11";
  return "12";
}

function reply(body: Record<string, unknown>): string {
  if (isSelection(body)) return COLD_REPLY;
  if (isGeneration(body)) return body.temperature === 0 ? COLD_REPLY : HOT_REPLY;
  // The judge approves every answer, so training scores differ from the evaluations' rule.
  if (isJudge(body)) return "The student did it. Correct [TERMINATE]";
  return agentReply(body);
}

function writeConfig(dir: string, mode: "real" | "stub", data: string, baseURL = ""): string {
  const path = join(dir, `${mode}.yaml`);
  // The judge calls llm.guide's model; the agent and the optimizer the llm block's.
  const llm = mode === "real" ? `llm: {model: test-model, base_url: "${baseURL}", api_key_env: FAKE_KEY, guide: {model: judge-model}}\npricing: {test-model: {input: 2, output: 10}, judge-model: {input: 1, output: 1}}\n` : "";
  writeFileSync(
    path,
    `mode: ${mode}\n${llm}seeds: [5]\ntasks:\n  - id: hf:gsm8k\n    eval_kwargs: {num_train: 2, num_validate: 2, num_test: 1, data_dir: ${JSON.stringify(data)}}\n` +
      `trainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 1}]\n    optimizer: OptoPrimeMulti\n    optimizer_kwargs: {num_responses: 2, selection_technique: best_of_n}\n    guide: LLMJudge\n`,
  );
  return path;
}

const run = (args: readonly string[]) =>
  runCliAsync(args, { cwd: REPO_ROOT, env: { ...process.env, FAKE_KEY: KEY, OPENAI_API_KEY: "", HF_HUB_CACHE: "/nonexistent-hub" }, timeoutMs: 120_000 });

const startedWith = (events: ReturnType<typeof eventsOf>, role: string) => events.filter((e) => e.type === "LlmCallStarted" && e.data.role === role);

describe("LLMJudge and OptoPrimeMulti in a run", () => {
  it("mode real: judge calls with role judge score training; OptoPrimeMulti's generation and selection calls with role optimizer, its choice is what runs; tokens --by role adds up; replay verifies", async () => {
    const dir = tempDir();
    const s = await server([], { fallback: reply });
    const r = await run(["run", "--config", writeConfig(dir, "real", writeData(dir), s.baseURL), "--runs-dir", dir, "--run-id", "real"]);
    expect(r.code, describeRun("run", r)).toBe(0);
    const runDir = join(dir, "real");
    const [row] = csvRows(join(runDir, "results.csv"));
    expect(row!.status, row!.feedback).toBe("ok");
    expect(row!.resolved_guide).toBe("LLMJudge");
    expect(row!.resolved_optimizer).toBe("OptoPrimeMulti");
    // Evaluations use GSM8K's rule (Sam right, the birds wrong), not the judge, which approves everything.
    expect(Number(row!.score_val_initial)).toBe(0.5);

    const work = s.received.filter((q) => !isPreflight(q));
    const judged = work.filter((q) => isJudge(q.body));
    const generated = work.filter((q) => isGeneration(q.body));
    const selections = work.filter((q) => isSelection(q.body));
    const events = eventsOf(runDir);
    expect(judged.length).toBeGreaterThan(0);
    expect(startedWith(events, "judge")).toHaveLength(judged.length);
    expect(new Set(judged.map((q) => q.body.model))).toEqual(new Set(["judge-model"]));
    expect(new Set([...generated, ...selections].map((q) => q.body.model))).toEqual(new Set(["test-model"]));
    expect(startedWith(events, "guide")).toHaveLength(0);
    // The trainer's rollouts were scored by the judge: every example it scored got 1.
    const trained = events.filter((e) => e.type === "CandidateEvaluated").flatMap((e) => e.data.example_scores as number[]);
    expect(trained.length).toBeGreaterThan(0);
    expect(new Set(trained)).toEqual(new Set([1]));

    // Each OptoPrimeMulti step: two generation calls (temperature 1, then 0), then best_of_n shown both.
    expect(selections.length).toBeGreaterThan(0);
    expect(generated).toHaveLength(2 * selections.length);
    expect(generated.map((q) => q.body.temperature)).toEqual(selections.flatMap(() => [1, 0]));
    for (const q of selections) {
      expect(q.body.temperature).toBe(0);
      expect(messages(q.body)[1]!.content).toContain(`Candidate 1:\n${HOT_REPLY}\n\nCandidate 2:\n${COLD_REPLY}\n\n`);
    }
    expect(startedWith(events, "optimizer")).toHaveLength(generated.length + selections.length);
    // The selected template is what the agent ran with; the one not selected never ran.
    const agentSystems = work.filter(isAgent).map(systemOf);
    expect(agentSystems).toContain(COLD_TEMPLATE);
    expect(agentSystems).not.toContain(HOT_TEMPLATE);

    for (const q of s.received) expect(q.authorization).toBe(`Bearer ${KEY}`);
    const audit = await run(["tokens", runDir, "--by", "role", "--json"]);
    expect(audit.code, describeRun("tokens", audit)).toBe(0);
    const groups = (JSON.parse(audit.stdout) as { groups: { key: string; calls: { completed: number } }[] }).groups;
    const completed = (key: string) => groups.find((g) => g.key === key)?.calls.completed;
    expect(completed("judge")).toBe(judged.length);
    expect(completed("optimizer")).toBe(generated.length + selections.length);
    expect(completed("agent")).toBe(work.filter(isAgent).length);

    const verify = await run(["replay", runDir, "--verify"]);
    expect(verify.code, describeRun("replay --verify", verify)).toBe(0);
  }, 300_000);

  it("mode stub: the judge's and OptoPrimeMulti's calls are recorded with their roles and answered the same on every run; replay verifies", async () => {
    const dir = tempDir();
    const data = writeData(dir);
    const outcomes: unknown[] = [];
    for (const id of ["stub1", "stub2"]) {
      const r = await run(["run", "--config", writeConfig(dir, "stub", data), "--runs-dir", dir, "--run-id", id]);
      expect(r.code, describeRun("run", r)).toBe(0);
      const events = eventsOf(join(dir, id));
      const judge = startedWith(events, "judge");
      const optimizer = startedWith(events, "optimizer");
      expect(judge.length).toBeGreaterThan(0);
      // Whole steps of two generation calls and one selection call.
      expect(optimizer.length).toBeGreaterThan(0);
      expect(optimizer.length % 3).toBe(0);
      const [row] = csvRows(join(dir, id, "results.csv"));
      expect(row!.status, row!.feedback).toBe("ok");
      outcomes.push([row!.job_id, row!.score_val_initial, row!.score_val_final, row!.feedback, judge.map((e) => e.data.request_hash), optimizer.map((e) => e.data.request_hash)]);
      const verify = await run(["replay", join(dir, id), "--verify"]);
      expect(verify.code, describeRun("replay --verify", verify)).toBe(0);
    }
    expect(outcomes[1]).toEqual(outcomes[0]);
  }, 300_000);

  it("validate --strict refuses, one line each, an OptoPrimeMulti technique trace-bench cannot run and an LLMJudge kwarg that belongs to llm.guide; OptoPrimeV1 validates", async () => {
    const dir = tempDir();
    const path = join(dir, "bad.yaml");
    writeFileSync(
      path,
      "mode: stub\ntasks: [internal:numeric_param]\ntrainers:\n" +
        "  - id: PrioritySearch\n    optimizer: OptoPrimeMulti\n    optimizer_kwargs: {generation_technique: multi_llm, selection_technique: best_of_m}\n    guide: LLMJudge\n    guide_kwargs: {model: gpt-4o-mini}\n" +
        "  - id: BasicSearchAlgorithm\n    optimizer: OptoPrimeV1\n",
    );
    const r = await run(["validate", "--config", path, "--strict", "--runs-dir", dir]);
    expect(r.code, describeRun("validate", r)).toBe(1);
    const failures = r.stdout.split("\n").filter((line) => line.includes("[FAIL]"));
    expect(failures.some((l) => l.includes("[FAIL] optimizer_kwargs.generation_technique: OptoPrimeMulti's multi_llm generation needs OpenTrace LLMFactory profiles"))).toBe(true);
    expect(failures.some((l) => l.includes("[FAIL] optimizer_kwargs.selection_technique: unknown OptoPrimeMulti selection_technique \"best_of_m\"; did you mean 'best_of_n'?"))).toBe(true);
    expect(failures.some((l) => l.includes("[FAIL] guide_kwargs.model: LLMJudge's model is set with llm.guide.model"))).toBe(true);
    expect(failures.some((l) => l.includes("OptoPrimeV1"))).toBe(false);
    expect(failures).toHaveLength(3);
  }, 120_000);
});
