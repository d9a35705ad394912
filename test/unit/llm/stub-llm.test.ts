/**
 * The stub LLM of mode stub: deterministic per (seed, prompt, occurrence), answering in the format
 * the optimizer asked for with real (seeded) changes, and flagging its token counts as estimates.
 */
import { describe, expect, it } from "vitest";
import { createStubLlm, STUB_MODEL } from "../../../adapters/llm/stub-llm.js";
import { estimateTokens, type ChatRequest, type VariableIntent } from "../../../src/llm/llm.js";
import { createOptimizer } from "../../../src/opt/optimizers/optimizer-registry.js";
import { DIALECTS } from "../../../src/opt/optimizers/prompt-optimizer.js";
import { parseJsonReply, parseXmlReply } from "../../../src/opt/optimizers/suggestion-parser.js";
import type { ProblemInstance } from "../../../src/opt/problem.js";
import { contextAndProblem, loadBundle, problemOf, signal, variable } from "../opt/optimizers/fixtures.js";

const request = (format: "xml" | "json", variables: VariableIntent[], prompt = "improve"): ChatRequest => ({
  messages: [
    { role: "system", content: "system" },
    { role: "user", content: prompt },
  ],
  intent: { kind: "propose", format, variables },
});

const numbers: VariableIntent[] = [
  { name: "x", kind: "number", value: 1.5 },
  { name: "n", kind: "integer", value: 10 },
];

async function propose(optimizer: string, problem: ProblemInstance, seed: number) {
  return createOptimizer(optimizer, {}, createStubLlm(seed)).propose(problem, signal);
}

describe("determinism", () => {
  it("the same seed, prompt and occurrence give the same reply", async () => {
    const [a, b] = [createStubLlm(7), createStubLlm(7)];
    for (let k = 0; k < 3; k++) expect((await a.complete(request("xml", numbers))).content).toBe((await b.complete(request("xml", numbers))).content);
  });

  it("another occurrence of the same prompt, another seed, or another prompt give another reply", async () => {
    const llm = createStubLlm(7);
    const first = (await llm.complete(request("json", numbers))).content;
    const second = (await llm.complete(request("json", numbers))).content;
    expect(second).not.toBe(first);
    expect((await createStubLlm(8).complete(request("json", numbers))).content).not.toBe(first);
    expect((await createStubLlm(7).complete(request("json", numbers, "improve more"))).content).not.toBe(first);
  });

  it("the same optimizer asking twice on the same problem gets different proposals", async () => {
    const llm = createStubLlm(3);
    const optimizer = createOptimizer("OptoPrimeV2", {}, llm);
    const p = problemOf([variable("x", "number", 1.5)]);
    const first = await optimizer.propose(p, signal);
    const second = await optimizer.propose(p, signal);
    expect(first.update.x).not.toBe(second.update.x);
  });
});

describe("proposals", () => {
  it("numbers move by at most half their size (at least 1), integers by whole non-zero steps", async () => {
    const p = problemOf([variable("x", "number", 1.5), variable("n", "integer", 10), variable("z", "number", 0)]);
    for (let seed = 1; seed <= 40; seed++) {
      const { update, notes } = await propose("OptoPrimeV2", p, seed);
      expect(notes).toEqual([]);
      const x = update.x as number;
      const n = update.n as number;
      const z = update.z as number;
      expect(x).not.toBe(1.5);
      expect(Math.abs(x - 1.5)).toBeLessThanOrEqual(1);
      expect(Number.isInteger(n)).toBe(true);
      expect(n).not.toBe(10);
      expect(Math.abs(n - 10)).toBeLessThanOrEqual(5);
      expect(Math.abs(z)).toBeLessThanOrEqual(1);
    }
  });

  it("text and code take one of their stubCandidates other than the current value, or are omitted", async () => {
    const p = problemOf([
      variable("t", "text", "Hello", { stubCandidates: ["Hello", "Hi", "Hey"] }),
      variable("f", "code", "def f(x): return x", { stubCandidates: ["def f(x): return x", "def f(x):\n    return x + 1"] }),
      variable("plain", "text", "unchanged"),
      variable("x", "number", 2.5),
    ]);
    const seen = new Set<unknown>();
    for (let seed = 1; seed <= 30; seed++) {
      for (const optimizer of ["OptoPrimeV2", "OptoPrime"]) {
        const { update, notes } = await propose(optimizer, p, seed);
        expect(notes).toEqual([]);
        expect(["Hi", "Hey"]).toContain(update.t);
        expect(update.f).toBe("def f(x):\n    return x + 1");
        expect("plain" in update).toBe(false);
        seen.add(update.t);
      }
    }
    expect(seen).toEqual(new Set(["Hi", "Hey"]));
  });

  it("json parameters take candidates too, and survive the reply format", async () => {
    const p = problemOf([variable("j", "json", { k: 1 }, { stubCandidates: [{ k: 1 }, { k: [2, "two"] }] })]);
    for (const optimizer of ["OptoPrimeV2", "OPRO"]) expect((await propose(optimizer, p, 5)).update).toEqual({ j: { k: [2, "two"] } });
  });

  it.each(["OptoPrimeV2", "OPROv2", "OptoPrime", "OPRO"])("%s: the reply parses with the matching parser and proposes every number", async (name) => {
    const bundle = await loadBundle();
    const llm = createStubLlm(11);
    const { context, problem } = await contextAndProblem(bundle, llm, name);
    const proposal = await context.createOptimizer().propose(problem, signal);
    expect(proposal.notes).toEqual([]);
    expect(proposal.terminated).toBe(false);
    expect(Object.keys(proposal.update).sort()).toEqual(["a", "b"]);
    const xml = DIALECTS[name]!.format === "xml";
    const parsed = xml ? parseXmlReply(proposal.reply) : parseJsonReply(proposal.reply);
    expect(parsed.problem).toBeUndefined();
    expect(Object.keys(parsed.suggestion).sort()).toEqual(["a", "b"]);
    if (!xml) expect(() => JSON.parse(proposal.reply) as unknown).not.toThrow();
  });

  it("with nothing to propose it answers TERMINATE, which reads as no change rather than an unreadable reply", async () => {
    const p = problemOf([variable("plain", "text", "same"), variable("f", "code", "def f(x): return x")]);
    for (const name of ["OptoPrimeV2", "OPROv2", "OptoPrime", "OPRO"]) {
      const proposal = await propose(name, p, 1);
      expect(proposal, name).toMatchObject({ update: {}, terminated: true, notes: [] });
    }
  });
});

describe("other requests and usage", () => {
  it("answers a text request and a request without intent", async () => {
    const llm = createStubLlm(1);
    expect((await llm.complete({ messages: [{ role: "user", content: "hi" }], intent: { kind: "text" } })).content).toBe("stub response");
    expect((await llm.complete({ messages: [{ role: "user", content: "hi" }] })).content).toBe('{"suggestion": {}}');
  });

  it("flags its token usage as estimated (about 4 characters a token)", async () => {
    const llm = createStubLlm(1);
    expect(llm.model).toBe(STUB_MODEL);
    const r = request("xml", numbers);
    const response = await llm.complete(r);
    expect(response.model).toBe(STUB_MODEL);
    expect(response.estimated).toBe(true);
    const prompt = r.messages.map((m) => `${m.role}: ${m.content}`).join("\n");
    expect(response.usage).toEqual({
      prompt_tokens: estimateTokens(prompt),
      completion_tokens: estimateTokens(response.content),
      total_tokens: estimateTokens(prompt) + estimateTokens(response.content),
    });
  });
});

describe("stub LLM: TextGrad updates", () => {
  it("answers an improve intent inside <IMPROVED_VARIABLE> tags with a moved number", async () => {
    const reply = await createStubLlm(7).complete({
      messages: [{ role: "user", content: "improve a" }],
      intent: { kind: "improve", variable: { name: "a", kind: "number", value: 1 } },
    });
    const match = /^<IMPROVED_VARIABLE>(.*)<\/IMPROVED_VARIABLE>$/.exec(reply.content);
    expect(match).not.toBeNull();
    expect(Number(match![1])).not.toBe(1);
    expect(Number.isFinite(Number(match![1]))).toBe(true);
  });
});
