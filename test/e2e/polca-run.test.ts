/**
 * POLCA end to end through the real CLI on hf:hotpot_qa from a data directory of hand-written rows:
 * the original's smoke config (test/fixtures/hf/configs/smoke_hf_hotpotqa_polca.yaml: its tasks,
 * trainers, params and seeds, mode stub) validates with the original's job id and runs in stub
 * mode with its embeddings audited; in mode real against a scripted server the server's
 * `/embeddings` and chat requests are exactly the log's `LlmCallStarted` events by role, the ε-net
 * drops equal proposals, the summary reaches the optimizer, `tokens --by role` adds up with the
 * server's count, and `replay --verify` passes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { contentRef } from "../../src/events/content-ref.js";
import { REPO_ROOT, tempDir } from "../support/cli.js";
import { describeRun, runCliAsync } from "../support/crash-harness.js";
import { embeddingTokens, fakeOpenAiServers, type ReceivedRequest } from "../support/fake-openai-server.js";
import { HOTPOT_TRAIN, HOTPOT_VALIDATION, writeJsonl } from "../support/hf-datasets.js";
import { csvRows, eventsOf, type EventRow } from "../support/run-dir.js";
import { writeFileSync } from "node:fs";

const server = fakeOpenAiServers();
const KEY = "sk-polca-test-key";
const SMOKE = join(REPO_ROOT, "test", "fixtures", "hf", "configs", "smoke_hf_hotpotqa_polca.yaml");
const originalIds = JSON.parse(readFileSync(join(REPO_ROOT, "test", "fixtures", "hf", "original-job-ids.json"), "utf8")) as Record<string, string[]>;

function writeData(dir: string): string {
  const data = join(dir, "data");
  writeJsonl(join(data, "hotpotqa", "hotpot_qa", "distractor", "train.jsonl"), HOTPOT_TRAIN);
  writeJsonl(join(data, "hotpotqa", "hotpot_qa", "distractor", "validation.jsonl"), HOTPOT_VALIDATION);
  return data;
}

const run = (args: readonly string[], data: string) =>
  runCliAsync(args, { cwd: REPO_ROOT, env: { ...process.env, FAKE_KEY: KEY, OPENAI_API_KEY: "", HF_HUB_CACHE: "/nonexistent-hub", TRACE_BENCH_HF_DATA_DIR: data }, timeoutMs: 120_000 });

const started = (events: readonly EventRow[], role: string) => events.filter((e) => e.type === "LlmCallStarted" && e.data.role === role);
const messageRefs = (e: EventRow) => (e.data.messages as { ref: string }[]).map((m) => m.ref);

describe("POLCA", () => {
  it("the original's smoke config validates with the original's job id and runs in stub mode, its embeddings recorded with role embedding", async () => {
    const dir = tempDir();
    const data = writeData(dir);
    const check = await run(["validate", "--strict", "--config", SMOKE, "--runs-dir", dir], data);
    expect(check.code, describeRun("validate", check)).toBe(0);
    expect([...check.stdout.matchAll(/^ {2}job ([0-9a-f]{12}): /gm)].map((m) => m[1])).toEqual(originalIds["smoke_hf_hotpotqa_polca.yaml"]);

    const outcomes: unknown[] = [];
    for (const id of ["stub1", "stub2"]) {
      const r = await run(["run", "--config", SMOKE, "--runs-dir", dir, "--run-id", id], data);
      expect(r.code, describeRun("run", r)).toBe(0);
      const runDir = join(dir, id);
      const [row] = csvRows(join(runDir, "results.csv"));
      expect(row!.status, row!.feedback).toBe("ok");
      expect(row!.job_id).toBe(originalIds["smoke_hf_hotpotqa_polca.yaml"]![0]);
      const events = eventsOf(runDir);
      const embeddings = started(events, "embedding");
      // The stub proposes other instructions, so there are candidates to embed, by the stub.
      expect(embeddings.length).toBeGreaterThan(0);
      for (const e of embeddings) expect(e.data.model).toBe("stub");
      expect(started(events, "optimizer").length).toBeGreaterThan(0);
      const notes = events.filter((e) => e.type === "IterationCompleted").flatMap((e) => (e.data.notes as string[] | undefined) ?? []);
      expect(notes.some((n) => /^POLCA: proposed \d+ new candidates, \d+ of them are added to the memory/.test(n))).toBe(true);

      const audit = await run(["tokens", runDir, "--by", "role", "--json"], data);
      expect(audit.code, describeRun("tokens", audit)).toBe(0);
      const groups = (JSON.parse(audit.stdout) as { groups: { key: string; calls: { completed: number } }[] }).groups;
      expect(groups.find((g) => g.key === "embedding")?.calls.completed).toBe(embeddings.length);
      outcomes.push([row!.score_val_initial, row!.score_val_final, row!.feedback, embeddings.length]);
    }
    // Stub embeddings and answers are the same on every run.
    expect(outcomes[1]).toEqual(outcomes[0]);
  }, 240_000);

  it("mode real: the server's /embeddings and chat requests are the log's LlmCallStarted by role; the ε-net and the summary work; tokens add up; replay verifies", async () => {
    const dir = tempDir();
    const data = writeData(dir);
    const SUMMARY = "Name the city and nothing else.";
    const isSummarizer = (body: Record<string, unknown>) => JSON.stringify(body.messages).includes("expert at analyzing agent behavior patterns");
    const optimizerReply = (body: Record<string, unknown>): string | null => {
      const prompt = (body.messages as { content: string }[]).map((m) => m.content).join("\n");
      const current = /<(?:variable|solution) name="meta_instructions" type="str">\s*<value>\n([\s\S]*?)\n<\/value>/.exec(prompt)?.[1];
      if (current === undefined) return null;
      // Every proposal of one candidate is the same text: all but one are within ε of each other.
      return `<reasoning>Be brief.</reasoning>\n<variable>\n<name>meta_instructions</name>\n<value>\nBe brief. ${current}\n</value>\n</variable>`;
    };
    const reply = (body: Record<string, unknown>) => {
      if (isSummarizer(body)) return `<reasoning>Short answers scored.</reasoning>\n<summary>\n${SUMMARY}\n</summary>`;
      return optimizerReply(body) ?? "Valdora";
    };
    const s = await server([], { fallback: reply });
    const config = join(dir, "real.yaml");
    writeFileSync(
      config,
      [
        "mode: real",
        `llm: {model: test-model, base_url: "${s.baseURL}", api_key_env: FAKE_KEY, embedding: {model: test-embed}}`,
        "pricing: {test-model: {input: 2, output: 10}, test-embed: {input: 0.5, output: 0}}",
        "seeds: [7]",
        "tasks:",
        "  - id: hf:hotpot_qa",
        "    eval_kwargs: {num_train: 2, num_validate: 1, num_test: 1}",
        "trainers:",
        "  - id: POLCA",
        "    params_variants: [{ps_steps: 3, ps_candidates: 2, num_proposals: 2, batch_size: 2, epsilon: 0.01, use_summarizer: true}]",
        "",
      ].join("\n"),
    );
    const r = await run(["run", "--config", config, "--runs-dir", dir, "--run-id", "real"], data);
    expect(r.code, describeRun("run", r)).toBe(0);
    const runDir = join(dir, "real");
    const [row] = csvRows(join(runDir, "results.csv"));
    expect(row!.status, row!.feedback).toBe("ok");
    const events = eventsOf(runDir);

    // Every request the server received is one LlmCallStarted of its role, with the same content.
    const received = s.received.filter((q) => !JSON.stringify(q.body.messages ?? "").includes("Reply with the word OK."));
    const byRole: Record<string, ReceivedRequest[]> = { embedding: [], summarizer: [], optimizer: [], agent: [] };
    for (const q of received) {
      const role = q.path.endsWith("/embeddings") ? "embedding" : isSummarizer(q.body) ? "summarizer" : optimizerReply(q.body) !== null ? "optimizer" : "agent";
      byRole[role]!.push(q);
    }
    for (const role of Object.keys(byRole)) expect(byRole[role]!.length, role).toBeGreaterThan(0);
    for (const [role, requests] of Object.entries(byRole)) {
      const logged = started(events, role);
      expect(logged.length, role).toBe(requests.length);
      const sent = requests.map((q) => (role === "embedding" ? [contentRef(String(q.body.input))] : (q.body.messages as { content: string }[]).map((m) => contentRef(m.content))));
      expect(logged.map(messageRefs).map((refs) => JSON.stringify(refs)).sort(), role).toEqual(sent.map((refs) => JSON.stringify(refs)).sort());
    }
    for (const q of byRole.embedding!) expect(q.body.model).toBe("test-embed");
    for (const q of s.received) expect(q.authorization).toBe(`Bearer ${KEY}`);

    // The ε-net (ε = 0.01; the server's vectors of two different texts are farther apart): per pair
    // both proposals are one text, and the two exploration copies of the initial agent propose the
    // same too: of 4 proposals of the first round, one is kept, the others are at distance 0.
    const notes = events.filter((e) => e.type === "IterationCompleted").flatMap((e) => (e.data.notes as string[] | undefined) ?? []);
    expect(notes.some((n) => n.startsWith("POLCA: proposed 4 new candidates, 1 of them are added to the memory")), JSON.stringify(notes)).toBe(true);
    // The summary reached the optimizer's prompts once a summary was made.
    expect(byRole.optimizer!.some((q) => JSON.stringify(q.body.messages).includes(SUMMARY))).toBe(true);
    expect(byRole.optimizer!.every((q) => JSON.stringify(q.body.messages).includes("Concrete recommendations for generating better agent parameters"))).toBe(true);

    const audit = await run(["tokens", runDir, "--by", "role", "--json"], data);
    expect(audit.code, describeRun("tokens", audit)).toBe(0);
    const groups = (JSON.parse(audit.stdout) as { groups: { key: string; calls: { completed: number }; billed: { prompt_tokens: number; total_tokens: number }; cost_usd: number | null }[] }).groups;
    const embedding = groups.find((g) => g.key === "embedding")!;
    expect(embedding.calls.completed).toBe(byRole.embedding!.length);
    const serverTokens = byRole.embedding!.reduce((sum, q) => sum + embeddingTokens(String(q.body.input)), 0);
    expect(embedding.billed.total_tokens).toBe(serverTokens);
    expect(embedding.cost_usd).toBeCloseTo((serverTokens * 0.5) / 1_000_000, 12);
    expect(groups.find((g) => g.key === "summarizer")?.calls.completed).toBe(byRole.summarizer!.length);

    const verify = await run(["replay", runDir, "--verify"], data);
    expect(verify.code, describeRun("replay --verify", verify)).toBe(0);
  }, 240_000);
});
