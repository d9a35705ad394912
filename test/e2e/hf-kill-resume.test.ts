/**
 * An hf run killed (-9) mid-evaluation and resumed: `hf:hotpot_qa` (the HotpotQA-style agent, one
 * LLM call per example) from a data directory of hand-written rows, in mode real against a
 * scripted server. The server holds every request from the k-th on (a gate), and the test kills
 * the run once a request is held and every answered request's reply is committed to the log: a
 * known state, no sleep. The resumed run sends none of the requests answered before the kill
 * again (counted per request hash), its results.csv equals an uninterrupted run's, and
 * `replay --verify` passes.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, tempDir } from "../support/cli.js";
import { describeRun, runCliAsync } from "../support/crash-harness.js";
import { fakeOpenAiServers, type ReceivedRequest } from "../support/fake-openai-server.js";
import { writeJsonl } from "../support/hf-datasets.js";
import { eventsOf } from "../support/run-dir.js";
import { parseCsvRecords } from "../../src/codec/python-csv.js";
import Database from "better-sqlite3";

const server = fakeOpenAiServers();
const KEY = "sk-hf-kill-resume-key";

/** Made-up HotpotQA rows (not from the dataset): four train rows (two train, two validate), one test row. */
const paragraph = (title: string, sentence: string) => ({ title: [title], sentences: [[sentence]] });
const TRAIN = [
  { id: "k1", question: "In which town was the painter Ivo Rask born?", answer: "Hollin", context: paragraph("Ivo Rask", "Ivo Rask, a painter, was born in Hollin.") },
  { id: "k2", question: "Which river flows through Marrow City?", answer: "Tesk", context: paragraph("Marrow City", "The Tesk flows through Marrow City.") },
  { id: "k3", question: "Who wrote the novel Glass Orchard?", answer: "Pia Long", context: paragraph("Glass Orchard", "Glass Orchard is a novel by Pia Long.") },
  { id: "k4", question: "What is the capital of the island of Doran?", answer: "Vell", context: paragraph("Doran", "Doran's capital is Vell.") },
];
const VALIDATION = [{ id: "k5", question: "Which team did Omar Quist coach?", answer: "Red Larks", context: paragraph("Omar Quist", "Omar Quist coached the Red Larks.") }];

function writeData(dir: string): string {
  const data = join(dir, "data");
  writeJsonl(join(data, "hotpotqa", "hotpot_qa", "distractor", "train.jsonl"), TRAIN);
  writeJsonl(join(data, "hotpotqa", "hotpot_qa", "distractor", "validation.jsonl"), VALIDATION);
  return data;
}

const INSTRUCTION = "Name the answer alone.";
const promptOf = (body: Record<string, unknown>) => (body.messages as { content: string }[]).map((m) => m.content).join("\n");
const isPreflight = (r: ReceivedRequest) => promptOf(r.body).includes("Reply with the word OK.");
/** The optimizer's reply: meta_instructions with one sentence put before them. */
const optimizerReply = (body: Record<string, unknown>): string | null => {
  const current = /<(?:variable|solution) name="meta_instructions" type="str">\s*<value>\n([\s\S]*?)\n<\/value>/.exec(promptOf(body))?.[1];
  if (current === undefined) return null;
  return `<reasoning>Ask for the answer alone.</reasoning>\n<variable>\n<name>meta_instructions</name>\n<value>\n${INSTRUCTION} ${current}\n</value>\n</variable>`;
};
/** The agent's reply: right for every question once told to name the answer alone, else right for the odd rows only. */
const agentReply = (body: Record<string, unknown>): string | null => {
  const prompt = promptOf(body);
  const row = [...TRAIN, ...VALIDATION].findIndex((r) => prompt.includes(`Question: ${r.question}`));
  if (row < 0) return null;
  const all = [...TRAIN, ...VALIDATION];
  return prompt.includes(INSTRUCTION) || row % 2 === 0 ? `It is ${all[row]!.answer}.` : "I cannot tell.";
};
const reply = (body: Record<string, unknown>) => optimizerReply(body) ?? agentReply(body) ?? "TERMINATE";
const isAgent = (r: ReceivedRequest) => optimizerReply(r.body) === null && agentReply(r.body) !== null;
/** Usage as a provider bills it: from the request, so both runs' token counts can be equal. */
const usage = (body: Record<string, unknown>) => {
  const prompt = Math.ceil(promptOf(body).length / 4);
  return { prompt_tokens: prompt, completion_tokens: 12, total_tokens: prompt + 12 };
};
const hashOf = (r: ReceivedRequest) => createHash("sha256").update(JSON.stringify(r.body)).digest("hex");

function writeConfig(dir: string, name: string, baseURL: string, data: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(
    path,
    `mode: real\nllm: {model: test-model, base_url: "${baseURL}", api_key_env: FAKE_KEY}\npricing: {test-model: {input: 2, output: 10}}\nseeds: [7]\n` +
      `tasks:\n  - id: hf:hotpot_qa\n    eval_kwargs: {num_train: 2, num_validate: 2, num_test: 1, data_dir: ${JSON.stringify(data)}}\n` +
      "trainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 2, num_threads: 2}]\n",
  );
  return path;
}

const run = (args: readonly string[], killWhen?: () => boolean) =>
  runCliAsync(args, { cwd: REPO_ROOT, env: { ...process.env, FAKE_KEY: KEY, OPENAI_API_KEY: "", HF_HUB_CACHE: "/nonexistent-hub" }, timeoutMs: 180_000, ...(killWhen ? { killWhen } : {}) });

/**
 * results.csv but the columns that differ by design: which run, how long, which server (a new one
 * per run, so its port) and how many calls the journal answered (the resume's own fact).
 */
const DIFFERING = ["run_id", "time_seconds", "llm_base_url", "replayed_calls"];
const results = (runDir: string) => parseCsvRecords(readFileSync(join(runDir, "results.csv"), "utf8"));
const resultsBut = (runDir: string) => results(runDir).map((row) => Object.fromEntries(Object.entries(row).filter(([column]) => !DIFFERING.includes(column))));

/** How many LLM calls have a committed end in the log (null while it cannot be read yet). */
function committedCallEnds(runDir: string): number | null {
  try {
    const db = new Database(join(runDir, "events.db"), { readonly: true, fileMustExist: true });
    try {
      return (db.prepare("SELECT COUNT(*) AS n FROM events WHERE type IN ('LlmCallCompleted', 'LlmCallFailed')").get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

describe("an hf run killed -9 mid-evaluation", () => {
  it("resumes without re-sending an answered request and ends with the uninterrupted run's results", async () => {
    const dir = tempDir();
    const data = writeData(dir);

    const whole = await server([], { fallback: reply, usage });
    const first = await run(["run", "--config", writeConfig(dir, "whole", whole.baseURL, data), "--runs-dir", dir, "--run-id", "whole"]);
    expect(first.code, describeRun("uninterrupted run", first)).toBe(0);
    const expected = resultsBut(join(dir, "whole"));
    expect(expected.map((row) => row.status)).toEqual(["ok"]);
    // The optimizer's instruction made every answer right: its replies were used, not just logged.
    expect(Number(expected[0]!.score_val_final)).toBeGreaterThan(Number(expected[0]!.score_val_initial));
    const work = whole.received.filter((r) => !isPreflight(r));
    const agentCalls = work.filter(isAgent).length;
    expect(agentCalls).toBeGreaterThanOrEqual(8);
    // Held from the middle of the agent's calls on: the kill lands while examples are evaluated.
    const gateAt = whole.received.indexOf(work.filter(isAgent)[Math.floor(agentCalls / 2)]!) + 1;

    let holding = true;
    const s = await server([], { fallback: reply, usage, hold: (_body, n) => holding && n >= gateAt });
    const config = writeConfig(dir, "killed", s.baseURL, data);
    const runDir = join(dir, "k");
    // The preflight is not an event of the log: only the jobs' requests are counted against it.
    const answered = () => s.received.filter((r) => !r.held && !isPreflight(r));
    const killed = await run(["run", "--config", config, "--runs-dir", dir, "--run-id", "k"], () => s.received.some((r) => r.held) && committedCallEnds(runDir) === answered().length);
    expect(killed.killedByTest, describeRun("run to be killed at the gate", killed)).toBe(true);
    expect(killed.signal).toBe("SIGKILL");
    const answeredBefore = answered();
    const heldAgent = s.received.filter((r) => r.held && isAgent(r));
    expect(heldAgent.length, "the kill came while the agent's calls were in flight").toBeGreaterThan(0);
    expect(answeredBefore.filter(isAgent).length).toBeGreaterThan(0);
    const sentBefore = s.received.length;

    holding = false;
    const resumed = await run(["run", "--config", config, "--runs-dir", dir, "--run-id", "k"]);
    expect(resumed.code, describeRun("resumed run", resumed)).toBe(0);

    // Per request hash (the same question may be asked more than once in a run, e.g. with the
    // same instructions in two evaluations): what was answered before the kill plus what the
    // resumed run sent is what the uninterrupted run sent, so no answered request went out again.
    const count = (requests: readonly ReceivedRequest[]) => {
      const counts = new Map<string, number>();
      for (const r of requests) counts.set(hashOf(r), (counts.get(hashOf(r)) ?? 0) + 1);
      return counts;
    };
    const uninterrupted = count(work);
    const before = count(answeredBefore);
    const after = count(s.received.slice(sentBefore).filter((r) => !isPreflight(r)));
    expect(s.received.slice(sentBefore).some((r) => r.held)).toBe(false);
    for (const [hash, n] of before) expect((after.get(hash) ?? 0) + n, `request ${hash} answered before the kill and sent again`).toBe(uninterrupted.get(hash));
    for (const [hash, n] of after) expect(n + (before.get(hash) ?? 0), `request ${hash}`).toBe(uninterrupted.get(hash));
    expect([...uninterrupted.keys()].sort()).toEqual([...new Set([...before.keys(), ...after.keys()])].sort());
    // The journal answered the re-run's calls that were answered before the kill.
    const replayed = eventsOf(runDir).filter((e) => e.type === "LlmCallCompleted" && e.data.replayed === true);
    expect(replayed.length).toBeGreaterThan(0);

    expect(resultsBut(runDir)).toEqual(expected);
    expect(Number(results(runDir)[0]!.replayed_calls)).toBe(replayed.length);
    const verify = await run(["replay", runDir, "--verify"]);
    expect(verify.code, describeRun("replay --verify", verify)).toBe(0);
  }, 400_000);
});
