/**
 * PromptOptimizer end to end on a scripted LLM: memory (the current step joins it after its prompt
 * is built), the request it sends, how replies become proposals, and fork().
 */
import { describe, expect, it } from "vitest";
import { createOptimizer } from "../../../../src/opt/optimizers/optimizer-registry.js";
import { DIALECTS, PromptOptimizer } from "../../../../src/opt/optimizers/prompt-optimizer.js";
import type { ProblemInstance } from "../../../../src/opt/problem.js";
import { jsonReply, scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { contextAndProblem, expectInOrder, loadBundle, problemOf, signal, userPrompt, variable } from "./fixtures.js";

const FEEDBACK = ["feedback-one", "feedback-two", "feedback-three", "feedback-four", "feedback-five", "feedback-six", "feedback-seven"];
const VALUES = [1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5];

/** Step i of a run: a = VALUES[i], feedback FEEDBACK[i]. */
const step = (i: number): ProblemInstance => problemOf([variable("a", "number", VALUES[i]!)], { feedback: FEEDBACK[i]! });

async function prompts(name: string, kwargs: Record<string, unknown>, steps: number): Promise<string[]> {
  const reply = DIALECTS[name]!.format === "xml" ? xmlReply({}) : jsonReply({});
  const llm = scriptedLlm(Array.from({ length: steps }, () => reply));
  const optimizer = createOptimizer(name, kwargs as never, llm);
  for (let i = 0; i < steps; i++) await optimizer.propose(step(i), signal);
  return llm.requests.map(userPrompt);
}

const round = (n: number, i: number) =>
  `<round ${n}>\n<variable>\n<name>a</name>\n<value>\n${VALUES[i]}\n</value>\n</variable>\n<feedback>\n${FEEDBACK[i]}\n</feedback>\n</round ${n}>`;

describe("memory", () => {
  it("with memory_size 2: the 1st prompt has none, the 2nd shows round 1, the 4th only the last two steps", async () => {
    const [p1, p2, p3, p4] = await prompts("OptoPrimeV2", { memory_size: 2 }, 4);
    expect(p1).not.toContain("<round");
    expect(p1).not.toContain("tried before");

    expect(p2).toContain(round(1, 0));
    expect(p2).not.toContain("<round 2>");
    // Memory comes after the problem instance and before the closing question.
    expectInOrder(p2!, ["# Feedback\nfeedback-two", "================================", "Below are the variables you tried before", "<round 1>", "What are your suggestions on variables a?"]);

    expect(p3).toContain(round(1, 0));
    expect(p3).toContain(round(2, 1));

    expect(p4).toContain(round(1, 1));
    expect(p4).toContain(round(2, 2));
    expect(p4).not.toContain("<round 3>");
    expect(p4).not.toContain("feedback-one");
    expect(p4).not.toContain("1.5");
  });

  it("is off by default for OptoPrimeV2 and OptoPrime (memory_size 0)", async () => {
    for (const name of ["OptoPrimeV2", "OptoPrime"]) {
      const [, , p3] = await prompts(name, {}, 3);
      expect(p3).not.toContain("feedback-one");
      expect(p3).not.toContain("feedback-two");
    }
  });

  it("V1 shows past steps as JSON objects of variables and feedback", async () => {
    const [p1, p2] = await prompts("OptoPrime", { memory_size: 3 }, 2);
    expect(p1).not.toContain("in the past");
    expectInOrder(p2!, ["#Feedback\nfeedback-two", "================================", "in the past", '"variables": {\n        "a": 1.5\n    }', '"feedback": "feedback-one"', "Your response:"]);
  });

  it("OPROv2 remembers the last 5 steps by default", async () => {
    const ps = await prompts("OPROv2", {}, 7);
    const p7 = ps[6]!;
    for (let n = 1; n <= 5; n++) expect(p7).toContain(round(n, n));
    expect(p7).not.toContain("<round 6>");
    expect(p7).not.toContain("feedback-one");
  });

  it("OPRO keeps every example, whatever memory_size says, and includes the current step", async () => {
    const ps = await prompts("OPRO", { memory_size: 1 }, 4);
    const examples = (prompt: string) =>
      prompt
        .split("================================")[0]!
        .replace("Below are some example variables and their feedbacks.", "")
        .trim()
        .split("\n\n")
        .map((text) => JSON.parse(text) as { variables: Record<string, unknown>; feedback: string });
    expect(examples(ps[0]!)).toEqual([{ variables: { a: 1.5 }, feedback: "feedback-one" }]);
    expect(examples(ps[3]!)).toEqual([0, 1, 2, 3].map((i) => ({ variables: { a: VALUES[i] }, feedback: FEEDBACK[i] })));
  });

  it("the bundle's memory_size reaches the optimizer through the trainer context", async () => {
    const bundle = await loadBundle();
    const llm = scriptedLlm([xmlReply({}), xmlReply({})]);
    const { context, problem } = await contextAndProblem(bundle, llm, "OptoPrimeV2");
    const optimizer = context.createOptimizer();
    await optimizer.propose(problem, signal);
    await optimizer.propose(problem, signal);
    expect(userPrompt(llm.requests[1]!)).toContain('<round 1>\n<variable>\n<name>float0</name>');
  });
});

describe("propose", () => {
  it("returns only coerced values of trainable variables (by parameter name), with notes for the rest", async () => {
    const bundle = await loadBundle();
    const reply = xmlReply({ float0: " 2.5 ", float1: "abc", c: "9" }, "Raise a.");
    const llm = scriptedLlm([reply]);
    const { context, problem } = await contextAndProblem(bundle, llm, "OptoPrimeV2");
    const proposal = await context.createOptimizer().propose(problem, signal);
    expect(proposal.update).toEqual({ a: 2.5 });
    expect(proposal.reasoning).toBe("Raise a.");
    expect(proposal.terminated).toBe(false);
    expect(proposal.reply).toBe(reply);
    expect(proposal.notes).toEqual([expect.stringMatching(/^float1: not a number: "abc"; left unchanged$/), "ignored suggestions for unknown variables: c"]);
  });

  it("ignores a proposal for a non-trainable parameter", async () => {
    const bundle = await loadBundle("internal:non_trainable");
    const llm = scriptedLlm([jsonReply({ fixed: "changed" })]);
    const { context, problem } = await contextAndProblem(bundle, llm, "OptoPrime");
    expect(problem.variables).toEqual([]);
    const proposal = await context.createOptimizer().propose(problem, signal);
    expect(proposal.update).toEqual({});
    expect(proposal.notes).toEqual(["ignored suggestions for unknown variables: fixed"]);
  });

  it("coerces JSON numbers and strings to the parameter kinds", async () => {
    const p = problemOf([variable("x", "number", 1.5), variable("n", "integer", 3), variable("t", "text", "hi"), variable("j", "json", { k: 1 })]);
    const llm = scriptedLlm([jsonReply({ x: "2", n: 4.9, t: 7, j: "{'k': 2, 'on': True}" })]);
    const proposal = await createOptimizer("OptoPrime", {}, llm).propose(p, signal);
    expect(proposal.update).toEqual({ x: 2, n: 4, t: "7", j: { k: 2, on: true } });
    expect(proposal.notes).toEqual([]);
  });

  it("an unparseable reply gives an empty update and a note, and does not throw", async () => {
    for (const [name, reply] of [
      ["OptoPrimeV2", "I would make a bigger."],
      ["OptoPrimeV2", "<reasoning>a should grow <variable><name>a</name><value>2</value></variable>"],
      ["OptoPrime", "I would make a bigger."],
      ["OPRO", "{not json at all"],
    ] as const) {
      const llm = scriptedLlm([reply]);
      const proposal = await createOptimizer(name, {}, llm).propose(step(0), signal);
      expect(proposal.update, `${name}: ${reply}`).toEqual({});
      expect(proposal.terminated).toBe(false);
      expect(proposal.notes).toHaveLength(1);
      expect(proposal.notes[0]).toMatch(/^unreadable reply: /);
      expect(proposal.reply).toBe(reply);
    }
  });

  it("TERMINATE alone: no change, terminated, no notes", async () => {
    for (const name of ["OptoPrimeV2", "OPROv2", "OptoPrime", "OPRO"]) {
      const proposal = await createOptimizer(name, {}, scriptedLlm(["TERMINATE"])).propose(step(0), signal);
      expect(proposal).toMatchObject({ update: {}, terminated: true, notes: [] });
    }
  });

  it.each([
    ["OptoPrimeV2", 8192, undefined, "xml"],
    ["OPROv2", 8192, undefined, "xml"],
    ["OptoPrime", 4096, "json_object", "json"],
    ["OPRO", 4096, "json_object", "json"],
  ] as const)("%s requests maxTokens %d, responseFormat %s", async (name, maxTokens, responseFormat, format) => {
    const llm = scriptedLlm([format === "xml" ? xmlReply({}) : jsonReply({})]);
    await createOptimizer(name, {}, llm).propose(problemOf([variable("t", "text", "hi")]), signal);
    const request = llm.requests[0]!;
    expect(request.maxTokens).toBe(maxTokens);
    expect(request.responseFormat).toBe(responseFormat);
    expect("responseFormat" in request).toBe(responseFormat !== undefined);
  });

  it("max_tokens from the kwargs overrides the default", async () => {
    const llm = scriptedLlm([xmlReply({})]);
    await createOptimizer("OptoPrimeV2", { max_tokens: 1000 }, llm).propose(step(0), signal);
    expect(llm.requests[0]!.maxTokens).toBe(1000);
  });
});

describe("fork", () => {
  it("copies the memory so far, then the two diverge", async () => {
    const llm = scriptedLlm(Array.from({ length: 5 }, () => xmlReply({})));
    const original = createOptimizer("OptoPrimeV2", { memory_size: 5 }, llm);
    await original.propose(step(0), signal);
    const fork = original.fork();
    expect(fork).toBeInstanceOf(PromptOptimizer);
    expect(fork.name).toBe("OptoPrimeV2");

    await original.propose(step(1), signal); // request 1: original remembers step 0
    await fork.propose(step(2), signal); // request 2: fork remembers step 0 too, not step 1
    expect(userPrompt(llm.requests[1]!)).toContain(round(1, 0));
    expect(userPrompt(llm.requests[2]!)).toContain(round(1, 0));
    expect(userPrompt(llm.requests[2]!)).not.toContain("feedback-two");

    await original.propose(step(3), signal); // request 3: steps 0, 1
    await fork.propose(step(3), signal); // request 4: steps 0, 2
    expect(userPrompt(llm.requests[3]!)).toContain(round(2, 1));
    expect(userPrompt(llm.requests[3]!)).not.toContain("feedback-three");
    expect(userPrompt(llm.requests[4]!)).toContain(round(2, 2));
    expect(userPrompt(llm.requests[4]!)).not.toContain("feedback-two");
  });

  it("keeps the options (objective, max tokens)", async () => {
    const llm = scriptedLlm([xmlReply({})]);
    const fork = createOptimizer("OptoPrimeV2", { objective: "Be brief.", max_tokens: 77 }, llm).fork();
    await fork.propose(step(0), signal);
    expect(llm.requests[0]!.maxTokens).toBe(77);
    expect(userPrompt(llm.requests[0]!)).toContain("# Instruction\nBe brief.\n");
  });
});
