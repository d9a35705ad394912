/**
 * An hf task run end to end through the agent port: `hf:gsm8k` from a data directory of
 * hand-written rows, in mode real against a scripted server on 127.0.0.1 and in mode stub. The
 * agent's calls are in the log with role `agent`, the guide scores the replies by GSM8K's rule (the
 * last number equals the gold), `tokens --by role` counts them as the server received them, and the run
 * verifies.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, tempDir } from "../support/cli.js";
import { describeRun, runCliAsync } from "../support/crash-harness.js";
import { fakeOpenAiServers, type ReceivedRequest } from "../support/fake-openai-server.js";
import { csvRows, eventsOf } from "../support/run-dir.js";

const server = fakeOpenAiServers();
const KEY = "sk-hf-agent-test-key";

/** Made-up GSM8K-style rows (question, gold): the first two train, the next two validate. */
const TRAIN = [
  ["Tom has 3 boxes of 4 pens. How many pens?", "12"],
  ["A cake costs $5. What do two cakes cost?", "10"],
  ["Sam reads 7 pages a day for 3 days. How many pages?", "21"],
  ["There are 9 birds and 4 fly off. How many stay?", "5"],
] as const;
const TEST = [["Ana has 6 apples and gets 6 more. How many apples?", "12"]] as const;

function writeData(dir: string): string {
  const data = join(dir, "data");
  const folder = join(data, "openai", "gsm8k", "main");
  mkdirSync(folder, { recursive: true });
  const jsonl = (rows: readonly (readonly [string, string])[]) => rows.map(([q, a]) => JSON.stringify({ question: q, answer: `Work it out.\n#### ${a}` })).join("\n") + "\n";
  writeFileSync(join(folder, "train.jsonl"), jsonl(TRAIN));
  writeFileSync(join(folder, "test.jsonl"), jsonl(TEST));
  return data;
}

const text = (r: ReceivedRequest) => JSON.stringify(r.body.messages);
const isPreflight = (r: ReceivedRequest) => text(r).includes("Reply with the word OK.");
/** The agent's request names one of the questions; its reply is right for Sam's pages, wrong for the birds. */
const agentReply = (body: Record<string, unknown>): string | null => {
  const asked = JSON.stringify(body.messages);
  if (asked.includes("Sam reads 7 pages")) return "7 pages times 3 days is 21";
  if (asked.includes("9 birds")) return "9 and 4 make 13";
  if (asked.includes("Tom has 3 boxes")) return "The answer is 12";
  if (asked.includes("A cake costs")) return "It costs 11";
  if (asked.includes("Ana has 6 apples")) return "12";
  return null;
};
/** The optimizer's reply: the agent's prompt template, kept, with one sentence put before it. */
const optimizerReply = (body: Record<string, unknown>): string | null => {
  const prompt = (body.messages as { content: string }[]).map((m) => m.content).join("\n");
  const current = /<variable name="prompt_template" type="str">\s*<value>\n([\s\S]*?)\n<\/value>/.exec(prompt)?.[1];
  if (current === undefined) return null;
  return `<reasoning>Ask for the number alone.</reasoning>\n<variable>\n<name>prompt_template</name>\n<value>\nGive the final number last. ${current}\n</value>\n</variable>`;
};
const isAgent = (r: ReceivedRequest) => optimizerReply(r.body) === null && agentReply(r.body) !== null;

function writeConfig(dir: string, mode: "real" | "stub", data: string, baseURL = ""): string {
  const path = join(dir, `${mode}.yaml`);
  const llm = mode === "real" ? `llm: {model: test-model, base_url: "${baseURL}", api_key_env: FAKE_KEY}\npricing: {test-model: {input: 2, output: 10}}\n` : "";
  writeFileSync(
    path,
    `mode: ${mode}\n${llm}seeds: [5]\ntasks:\n  - id: hf:gsm8k\n    eval_kwargs: {num_train: 2, num_validate: 2, num_test: 1, data_dir: ${JSON.stringify(data)}}\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 1}]\n`,
  );
  return path;
}

const run = (args: readonly string[]) =>
  runCliAsync(args, { cwd: REPO_ROOT, env: { ...process.env, FAKE_KEY: KEY, OPENAI_API_KEY: "", HF_HUB_CACHE: "/nonexistent-hub" }, timeoutMs: 120_000 });

describe("an hf task through the agent port", () => {
  it("mode real: the agent's calls are logged with role agent, scored by GSM8K's rule, and tokens --by role counts them as the server received them", async () => {
    const dir = tempDir();
    const s = await server([], { fallback: (body) => optimizerReply(body) ?? agentReply(body) ?? "TERMINATE" });
    const r = await run(["run", "--config", writeConfig(dir, "real", writeData(dir), s.baseURL), "--runs-dir", dir, "--run-id", "real"]);
    expect(r.code, describeRun("run", r)).toBe(0);
    const runDir = join(dir, "real");
    const [row] = csvRows(join(runDir, "results.csv"));
    expect(row!.status, row!.feedback).toBe("ok");
    // Validation holds Sam's pages (right: 21) and the birds (wrong: 13 is not 5).
    expect(Number(row!.score_val_initial)).toBe(0.5);

    const events = eventsOf(runDir);
    const agentStarted = events.filter((e) => e.type === "LlmCallStarted" && e.data.role === "agent");
    const agentRequests = s.received.filter((q) => !isPreflight(q) && isAgent(q));
    expect(agentRequests.length).toBeGreaterThanOrEqual(2);
    expect(agentStarted).toHaveLength(agentRequests.length);
    // No request carried anything but the test's key.
    for (const q of s.received) expect(q.authorization).toBe(`Bearer ${KEY}`);

    const audit = await run(["tokens", runDir, "--by", "role", "--json"]);
    expect(audit.code, describeRun("tokens", audit)).toBe(0);
    const json = JSON.parse(audit.stdout) as { groups: { key: string; calls: { completed: number } }[] };
    const agent = json.groups.find((g) => g.key === "agent");
    expect(agent?.calls.completed).toBe(agentRequests.length);
    expect(json.groups.some((g) => g.key === "optimizer")).toBe(true);

    const verify = await run(["replay", runDir, "--verify"]);
    expect(verify.code, describeRun("replay --verify", verify)).toBe(0);
  }, 240_000);

  it("mode stub: the agent's calls are recorded with role agent, answered the same on every run", async () => {
    const dir = tempDir();
    const data = writeData(dir);
    const outcomes: unknown[] = [];
    for (const id of ["stub1", "stub2"]) {
      const r = await run(["run", "--config", writeConfig(dir, "stub", data), "--runs-dir", dir, "--run-id", id]);
      expect(r.code, describeRun("run", r)).toBe(0);
      const events = eventsOf(join(dir, id));
      expect(events.filter((e) => e.type === "LlmCallStarted" && e.data.role === "agent").length).toBeGreaterThan(0);
      const [row] = csvRows(join(dir, id, "results.csv"));
      expect(row!.status).toBe("ok");
      outcomes.push([row!.job_id, row!.score_val_initial, row!.score_val_final, row!.feedback]);
    }
    expect(outcomes[1]).toEqual(outcomes[0]);
  }, 240_000);
});
