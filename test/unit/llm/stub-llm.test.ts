/**
 * The stub LLM of mode stub: it reads the optimizers' real prompts, is deterministic per (seed,
 * prompt, occurrence), answers in the format asked for with real (seeded) changes, and flags its
 * token counts as estimates.
 */
import { describe, expect, it } from "vitest";
import { createStubLlm, STUB_MODEL, type StubAlternatives } from "../../../adapters/llm/stub-llm.js";
import { readStubRequest } from "../../../adapters/llm/stub-request.js";
import { codeParamStubAlternatives } from "../../../adapters/tasks/internal/code-param.js";
import { BUILTIN_STUB_ALTERNATIVES } from "../../../adapters/tasks/stub-alternatives.js";
import { estimateTokens, type ChatRequest } from "../../../src/llm/llm.js";
import { createOptimizer } from "../../../src/opt/optimizers/optimizer-registry.js";
import { DIALECTS } from "../../../src/opt/optimizers/prompt-optimizer.js";
import { parseJsonReply, parseXmlReply } from "../../../src/opt/optimizers/suggestion-parser.js";
import type { ProblemInstance } from "../../../src/opt/problem.js";
import { scriptedLlm } from "../../support/scripted-llm.js";
import { contextAndProblem, loadBundle, problemOf, signal, variable } from "../opt/optimizers/fixtures.js";

const PROPOSERS = ["OptoPrimeV2", "OPROv2", "OptoPrime", "OPRO"] as const;

/** The requests an optimizer sends for a problem, answered by a script instead of the stub. */
async function requestsOf(optimizer: string, problem: ProblemInstance, replies: readonly string[] = ["TERMINATE"]): Promise<ChatRequest[]> {
  const llm = scriptedLlm(replies);
  await createOptimizer(optimizer, {}, llm).propose(problem, signal);
  return llm.requests;
}

const numbers = problemOf([variable("x", "number", 1.5), variable("n", "integer", 10)]);

async function propose(optimizer: string, problem: ProblemInstance, seed: number, alternatives?: StubAlternatives) {
  return createOptimizer(optimizer, {}, createStubLlm(seed, alternatives)).propose(problem, signal);
}

describe("reading a request", () => {
  const mixed = problemOf([
    variable("x", "number", 1.5),
    variable("n", "integer", 10),
    variable("t", "text", "Hello, world: x=1"),
    variable("f", "code", "def f(x):\n\n    return x\n"),
    variable("j", "json", { k: [1, "two"] }),
  ]);

  it.each(PROPOSERS)("%s: the reply format, and every variable's name, kind and current value", async (name) => {
    const [request] = await requestsOf(name, mixed);
    // OPRO's examples show JSON values without types: numbers read as floats, strings as text.
    const untyped = name === "OPRO";
    expect(readStubRequest(request!)).toEqual({
      kind: "propose",
      format: DIALECTS[name]!.format,
      variables: [
        { name: "x", kind: "number", value: 1.5 },
        { name: "n", kind: untyped ? "number" : "integer", value: 10 },
        { name: "t", kind: "text", value: "Hello, world: x=1" },
        { name: "f", kind: untyped ? "text" : "code", value: "def f(x):\n\n    return x\n" },
        { name: "j", kind: "json", value: { k: [1, "two"] } },
      ],
    });
  });

  it("the current values, not the ones in the optimizer's memory of earlier steps", async () => {
    for (const name of ["OPROv2", "OPRO"]) {
      const llm = scriptedLlm(["TERMINATE", "TERMINATE"]);
      const optimizer = createOptimizer(name, {}, llm);
      await optimizer.propose(problemOf([variable("x", "number", 1.5)]), signal);
      await optimizer.propose(problemOf([variable("x", "number", 2.25)]), signal);
      expect(llm.requests[1]!.messages.some((m) => m.content.includes("1.5")), name).toBe(true);
      expect(readStubRequest(llm.requests[1]!), name).toMatchObject({ variables: [{ name: "x", value: 2.25 }] });
    }
  });

  it("TextGrad: gradient calls are plain text; an update call names its variable, with a long value read whole", async () => {
    const long = Array.from({ length: 30 }, (_, i) => `w${i}`).join(" ");
    const requests = await requestsOf("TextGrad", problemOf([variable("a", "number", 1), variable("prompt", "text", long)]), ["g", "g", "<IMPROVED_VARIABLE>2</IMPROVED_VARIABLE>", "<IMPROVED_VARIABLE>p</IMPROVED_VARIABLE>"]);
    expect(requests.map(readStubRequest)).toEqual([
      { kind: "text" },
      { kind: "text" },
      { kind: "improve", variable: { name: "a", kind: "number", value: 1 } },
      { kind: "improve", variable: { name: "prompt", kind: "text", value: long } },
    ]);
  });

  it("anything else is a plain text request", () => {
    expect(readStubRequest({ messages: [{ role: "user", content: "hi" }] })).toEqual({ kind: "text" });
  });
});

describe("determinism", () => {
  it("the same seed, prompt and occurrence give the same reply", async () => {
    const [request] = await requestsOf("OptoPrimeV2", numbers);
    const [a, b] = [createStubLlm(7), createStubLlm(7)];
    for (let k = 0; k < 3; k++) expect((await a.complete(request!)).content).toBe((await b.complete(request!)).content);
  });

  it("another occurrence of the same prompt, another seed, or another prompt give another reply", async () => {
    const [request] = await requestsOf("OptoPrime", numbers);
    const [other] = await requestsOf("OptoPrime", problemOf(numbers.variables, { feedback: "ID [0]: try harder\n" }));
    const llm = createStubLlm(7);
    const first = (await llm.complete(request!)).content;
    const second = (await llm.complete(request!)).content;
    expect(second).not.toBe(first);
    expect((await createStubLlm(8).complete(request!)).content).not.toBe(first);
    expect((await createStubLlm(7).complete(other!)).content).not.toBe(first);
  });

  it("the same optimizer asking twice on the same problem gets different proposals", async () => {
    const optimizer = createOptimizer("OptoPrimeV2", {}, createStubLlm(3));
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

  it("text and code take one of the alternatives offered for their name other than the current value, or are omitted", async () => {
    const alternatives = { t: ["Hello", "Hi", "Hey"], f: ["def f(x): return x", "def f(x):\n    return x + 1"] };
    const p = problemOf([variable("t", "text", "Hello"), variable("f", "code", "def f(x): return x"), variable("plain", "text", "unchanged"), variable("x", "number", 2.5)]);
    const seen = new Set<unknown>();
    for (let seed = 1; seed <= 30; seed++) {
      for (const optimizer of ["OptoPrimeV2", "OptoPrime"]) {
        const { update, notes } = await propose(optimizer, p, seed, alternatives);
        expect(notes).toEqual([]);
        expect(["Hi", "Hey"]).toContain(update.t);
        expect(update.f).toBe("def f(x):\n    return x + 1");
        expect("plain" in update).toBe(false);
        seen.add(update.t);
      }
    }
    expect(seen).toEqual(new Set(["Hi", "Hey"]));
  });

  it("alternatives count only for a parameter that holds one of them (another task's parameter of the same name stays)", async () => {
    const p = problemOf([variable("t", "text", "Howdy"), variable("constructor", "text", "x")]);
    expect(await propose("OptoPrimeV2", p, 1, { t: ["Hello", "Hi"] })).toMatchObject({ update: {}, terminated: true });
  });

  it("a traced task's parameter, shown by its graph name, takes the alternatives of the list that holds its value (code_param's code)", async () => {
    const bundle = await loadBundle("internal:code_param");
    const { context, problem } = await contextAndProblem(bundle, createStubLlm(3, BUILTIN_STUB_ALTERNATIVES), "OptoPrimeV2");
    expect(problem.variables.map((v) => [v.name, v.parameter])).toEqual([["__code0", "code"]]);
    const { update } = await context.createOptimizer().propose(problem, signal);
    expect(codeParamStubAlternatives.code.slice(1)).toContain(update.code);
  });

  it("json parameters take alternatives too, and survive the reply format", async () => {
    const p = problemOf([variable("j", "json", { k: 1 })]);
    for (const optimizer of PROPOSERS) expect((await propose(optimizer, p, 5, { j: [{ k: 1 }, { k: [2, "two"] }] })).update, optimizer).toEqual({ j: { k: [2, "two"] } });
  });

  it.each(PROPOSERS)("%s: the reply parses with the matching parser and proposes every number", async (name) => {
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
    // The reply names the graph's variables; the update is keyed by parameter.
    expect(Object.keys(parsed.suggestion).sort()).toEqual(["float0", "float1"]);
    if (!xml) expect(() => JSON.parse(proposal.reply) as unknown).not.toThrow();
  });

  it("with nothing to propose it answers TERMINATE, which reads as no change rather than an unreadable reply", async () => {
    const p = problemOf([variable("plain", "text", "same"), variable("f", "code", "def f(x): return x")]);
    for (const name of PROPOSERS) {
      const proposal = await propose(name, p, 1);
      expect(proposal, name).toMatchObject({ update: {}, terminated: true, notes: [] });
    }
  });
});

describe("TextGrad updates", () => {
  it("answers inside <IMPROVED_VARIABLE> tags with a moved number, or another offered alternative", async () => {
    const p = problemOf([variable("a", "number", 1), variable("f", "code", "def f(x): return x")]);
    const proposal = await propose("TextGrad", p, 7, { f: ["def f(x): return x", "def f(x): return x + 1"] });
    expect(proposal.notes).toEqual([]);
    expect(proposal.reply).toMatch(/\[a\]\n<IMPROVED_VARIABLE>[^<]+<\/IMPROVED_VARIABLE>/);
    expect(proposal.update.a).not.toBe(1);
    expect(Number.isFinite(proposal.update.a)).toBe(true);
    expect(proposal.update.f).toBe("def f(x): return x + 1");
  });

  it("keeps a value it has nothing to offer for, and answers an update it cannot read with empty tags", async () => {
    const long = Array.from({ length: 30 }, (_, i) => `w${i}`).join(" ");
    expect((await propose("TextGrad", problemOf([variable("prompt", "text", long)]), 7)).update).toEqual({ prompt: long });
    const unreadable = await createStubLlm(1).complete({ messages: [{ role: "system", content: "Answer between <IMPROVED_VARIABLE> tags." }, { role: "user", content: "improve it" }] });
    expect(unreadable.content).toBe("<IMPROVED_VARIABLE></IMPROVED_VARIABLE>");
  });
});

describe("other requests and usage", () => {
  it("answers a plain text request with text", async () => {
    expect((await createStubLlm(1).complete({ messages: [{ role: "user", content: "hi" }] })).content).toBe("stub response");
  });

  it("flags its token usage as estimated (about 4 characters a token)", async () => {
    const llm = createStubLlm(1);
    expect(llm.model).toBe(STUB_MODEL);
    const [request] = await requestsOf("OptoPrimeV2", numbers);
    const response = await llm.complete(request!);
    expect(response.model).toBe(STUB_MODEL);
    expect(response.estimated).toBe(true);
    const prompt = request!.messages.map((m) => `${m.role}: ${m.content}`).join("\n");
    expect(response.usage).toEqual({
      prompt_tokens: estimateTokens(prompt),
      completion_tokens: estimateTokens(response.content),
      total_tokens: estimateTokens(prompt) + estimateTokens(response.content),
    });
  });
});
