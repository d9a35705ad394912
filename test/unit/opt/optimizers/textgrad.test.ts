import { describe, expect, it } from "vitest";
import { createStubLlm } from "../../../../adapters/llm/stub-llm.js";
import { builtinTaskRegistry } from "../../../../adapters/tasks/index.js";
import type { Kwargs } from "../../../../src/config/kwargs.js";
import type { ChatRequest, Llm } from "../../../../src/llm/llm.js";
import { createOptimizer, OPTIMIZER_NAMES, UNAVAILABLE_OPTIMIZERS } from "../../../../src/opt/optimizers/optimizer-registry.js";
import { parseImprovedVariable, TEXTGRAD_DEFAULT_MAX_TOKENS, TextGradOptimizer } from "../../../../src/opt/optimizers/textgrad.js";
import { GRADIENT_SYSTEM_PROMPT, REDUCE_SYSTEM_PROMPT, shortValue, UPDATE_SYSTEM_PROMPT } from "../../../../src/opt/optimizers/textgrad-prompts.js";
import type { JsonValue } from "../../../../src/domain/json-value.js";
import type { ParameterKind } from "../../../../src/domain/parameter.js";
import type { ProblemInstance, ProblemVariable } from "../../../../src/opt/problem.js";
import { examplesOf, type Example } from "../../../../src/opt/rollout.js";
import type { TaskBundle } from "../../../../src/domain/task-bundle.js";
import { scriptedLlm } from "../../../support/scripted-llm.js";
import { harnessContext } from "../../../support/trainer-harness.js";
import { defineTraceModel } from "../../../../src/opt/trace/model.js";

const signal = new AbortController().signal;
const improved = (value: string) => `<IMPROVED_VARIABLE>${value}</IMPROVED_VARIABLE>`;
const system = (r: ChatRequest) => r.messages.find((m) => m.role === "system")!.content;
const user = (r: ChatRequest) => r.messages.find((m) => m.role === "user")!.content;

async function multiParam(trainable: readonly string[] = ["a", "b"]): Promise<TaskBundle> {
  const bundle = await builtinTaskRegistry().load("internal:multi_param", {});
  return { ...bundle, parameters: bundle.parameters.map((p) => ({ ...p, trainable: trainable.includes(p.name) })) };
}

const TWO_EXAMPLES: readonly Example[] = [
  { input: null, info: 3.0 },
  { input: null, info: 5.0 },
];

/** A real problem from the trainer context: the bundle's initial values rolled out on `examples`. */
async function realProblem(bundle: TaskBundle, llm: Llm, examples?: readonly Example[], optimizerKwargs: Kwargs = {}) {
  const { context, events } = harnessContext(bundle, llm, { optimizer: "TextGrad", optimizerKwargs });
  const rollouts = await context.rollout(context.initialValues, examples ?? examplesOf(context.train));
  return { context, events, problem: context.problem(context.initialValues, rollouts) };
}

function variable(name: string, kind: ParameterKind, value: JsonValue, description = `The ${name}.`): ProblemVariable {
  const type = { number: "float", integer: "int", text: "str", code: "code", json: Array.isArray(value) ? "list" : "dict" }[kind];
  return { name, kind, type, value, description };
}

function handProblem(variables: readonly ProblemVariable[], feedback = "ID [0]: try again\n"): ProblemInstance {
  return {
    code: "output = agent(input)",
    documentation: {},
    variables,
    inputs: [{ name: "input", type: "str", value: "ID [0]: hello\n" }],
    others: [],
    outputs: [{ name: "output", type: "str", value: "ID [0]: world\n" }],
    feedback,
  };
}

describe("TextGrad call accounting over the traced graph (edges + reduces + variables)", () => {
  const G = GRADIENT_SYSTEM_PROMPT;
  const U = UPDATE_SYSTEM_PROMPT;

  it("multi_param, a trainable, batch 1: batchify→add, add→a, add→b (a fixed input), then update a", async () => {
    const bundle = await multiParam(["a"]);
    const llm = scriptedLlm(["grad add", "grad a", "grad b", improved("2.0")]);
    const { problem } = await realProblem(bundle, llm);
    expect(problem.variables.map((v) => [v.name, v.parameter])).toEqual([["float0", "a"]]);
    const proposal = await new TextGradOptimizer(llm).propose(problem, signal);
    expect(llm.requests.map(system)).toEqual([G, G, G, U]);
    expect(user(llm.requests[0]!)).toContain("<ROLE> float node 'add0' (output of the operation add)");
    expect(user(llm.requests[1]!)).toContain("<ROLE> float variable 'float0' (First addend.) </ROLE>");
    // b is fixed here: an input of add, which gets a gradient but no update.
    expect(user(llm.requests[2]!)).toContain("<ROLE> float node 'float1' (input)");
    expect(proposal.update).toEqual({ a: 2 });
  });

  it("multi_param, batch 1: 3 backward calls, then a and b updated in parameter order", async () => {
    const llm = scriptedLlm(["grad add", "grad a", "grad b", improved("1.5"), improved("1.5")]);
    const { problem } = await realProblem(await multiParam(), llm);
    const proposal = await new TextGradOptimizer(llm).propose(problem, signal);
    expect(llm.requests.map(system)).toEqual([G, G, G, U, U]);
    // The gradient on add (from the output) is what add passes on to its inputs.
    expect(user(llm.requests[0]!)).toContain("<OP_OUTPUT>:\nID [0]: target=3");
    expect(user(llm.requests[1]!)).toContain("<OP_OUTPUT>:\ngrad add");
    expect(user(llm.requests[3]!)).toContain("<ROLE>float variable 'float0' (First addend.)</ROLE>");
    expect(user(llm.requests[3]!)).toContain("<FEEDBACK>grad a</FEEDBACK>");
    expect(user(llm.requests[4]!)).toContain("<FEEDBACK>grad b</FEEDBACK>");
    expect(proposal).toMatchObject({ update: { a: 1.5, b: 1.5 }, terminated: false, notes: [] });
    expect(proposal.reasoning).toContain("grad a");
    expect(proposal.reasoning).toContain("grad b");
  });

  it("multi_param, batch 2: no reduce (each node gets one gradient): 2 + 4 backward calls, 2 updates with 2 gradients each", async () => {
    const llm = scriptedLlm(["g0", "g1", "ga0", "gb0", "ga1", "gb1", improved("1.2"), improved("1.8")]);
    const { problem } = await realProblem(await multiParam(), llm, TWO_EXAMPLES);
    const proposal = await new TextGradOptimizer(llm).propose(problem, signal);
    expect(llm.requests.map(system)).toEqual([G, G, G, G, G, G, U, U]);
    expect(user(llm.requests[6]!).match(/<\/FEEDBACK>/g)).toHaveLength(2);
    expect(user(llm.requests[6]!)).toContain("<FEEDBACK>ga0</FEEDBACK>");
    expect(user(llm.requests[6]!)).toContain("<FEEDBACK>ga1</FEEDBACK>");
    expect(llm.remaining()).toBe(0);
    expect(proposal.update).toEqual({ a: 1.2, b: 1.8 });
  });

  it("a reduce call where two gradients meet on an operation's output (a diamond)", async () => {
    const twice = { name: "twice", documentation: "Doubles x." };
    const plus = { name: "plus", documentation: "Adds x and y." };
    const model = defineTraceModel({
      name: "DiamondModel",
      parameters: [{ name: "a", kind: "number", value: 1, description: "The a." }],
      async forward(self) {
        const y = await self.op(twice, { x: self.param("a") }, ({ x }) => 2 * Number(x));
        const left = await self.op(twice, { x: y }, ({ x }) => 2 * Number(x));
        const right = await self.op(twice, { x: y }, ({ x }) => 2 * Number(x));
        return self.op(plus, { x: left, y: right }, ({ x, y: z }) => Number(x) + Number(z));
      },
    });
    const bundle: TaskBundle = { ...(await multiParam()), parameters: model.parameters, agent: model.agent };
    // batchify→plus, plus→twice1, plus→twice2, twice1→twice0, twice2→twice0, reduce on twice0, twice0→a, update a.
    const llm = scriptedLlm(["g", "gl", "gr", "gy1", "gy2", "reduced", "ga", improved("0.75")]);
    const { problem } = await realProblem(bundle, llm);
    expect(problem.code.split("\n")).toEqual([
      "twice0 = twice(x=float0)",
      "twice1 = twice(x=twice0)",
      "twice2 = twice(x=twice0)",
      "plus0 = plus(x=twice1, y=twice2)",
      "batchify0 = batchify(args_0=plus0)",
    ]);
    const proposal = await new TextGradOptimizer(llm).propose(problem, signal);
    expect(llm.requests.map(system)).toEqual([G, G, G, G, G, REDUCE_SYSTEM_PROMPT, G, U]);
    expect(user(llm.requests[5]!)).toBe("<FEEDBACK>gy1</FEEDBACK>\n<FEEDBACK>gy2</FEEDBACK>");
    expect(user(llm.requests[6]!)).toContain("<OP_OUTPUT>:\nreduced");
    expect(proposal.update).toEqual({ a: 0.75 });
  });

  it("an untraced agent's problem: one backward call per variable (output ← variable), one update each", async () => {
    const llm = scriptedLlm(["grad a", "grad b", improved("2"), improved("3")]);
    const proposal = await new TextGradOptimizer(llm).propose(handProblem([variable("a", "number", 1), variable("b", "number", 1)]), signal);
    expect(llm.requests.map(system)).toEqual([G, G, U, U]);
    expect(user(llm.requests[0]!)).toContain("<OP_OUTPUT>:\nID [0]: try again");
    expect(proposal.update).toEqual({ a: 2, b: 3 });
  });

  it("no trainable parameters: no call, a note", async () => {
    const llm = scriptedLlm([]);
    const proposal = await new TextGradOptimizer(llm).propose(handProblem([]), signal);
    expect(llm.requests).toHaveLength(0);
    expect(proposal.update).toEqual({});
    expect(proposal.notes).toHaveLength(1);
  });

  it("every call is metered by the trainer context (5 LlmCallCompleted on multi_param)", async () => {
    const llm = scriptedLlm(["g", "g", "g", improved("1"), improved("2")]);
    const { context, events, problem } = await realProblem(await multiParam(), llm);
    const optimizer = context.createOptimizer();
    expect(optimizer.name).toBe("TextGrad");
    await optimizer.propose(problem, signal);
    expect(events.filter((e) => e.type === "LlmCallCompleted")).toHaveLength(5);
  });
});

describe("TextGrad prompts", () => {
  it("a backward prompt holds the edge's input and output values, the input's role and the gradient reaching the output", async () => {
    const llm = scriptedLlm(["grad add", "grad a", "grad b", improved("2.0")]);
    const { problem } = await realProblem(await multiParam(["a"]), llm);
    await new TextGradOptimizer(llm).propose(problem, signal);
    const request = llm.requests[1]!;
    const prompt = user(request);
    expect(prompt).toContain("<ROLE> float variable 'float0' (First addend.) </ROLE>");
    expect(prompt).toContain("<LM_INPUT> 1.0 </LM_INPUT>");
    expect(prompt).toContain("<LM_OUTPUT> 2.0 </LM_OUTPUT>");
    expect(prompt).toContain("float node 'add0' (output of the operation add) (This is an add operator of x and y.)");
    expect(prompt).toContain("<OBJECTIVE_FUNCTION>Your goal is to give feedback on the variable that addresses this feedback on the <OP_OUTPUT>:\ngrad add </OBJECTIVE_FUNCTION>");
    expect(prompt).toContain("<VARIABLE> 1.0 </VARIABLE>");
    // The reference's gradient prompts carry these tags and no <FEEDBACK> (parity scenario textgrad).
    expect([...new Set(prompt.match(/<([A-Z_]+)>/g))].sort()).toEqual(["<LM_INPUT>", "<LM_OUTPUT>", "<OBJECTIVE_FUNCTION>", "<OP_OUTPUT>", "<ROLE>", "<VARIABLE>"]);
    expect(request.maxTokens).toBe(TEXTGRAD_DEFAULT_MAX_TOKENS);
    expect(request.responseFormat).toBeUndefined();
  });

  it("the update prompt holds the role, short value, gradient with its conversation, constraints and the answer tags", async () => {
    const llm = scriptedLlm(["grad add", "make a bigger", "grad b", improved("2.0")]);
    const { problem } = await realProblem(await multiParam(["a"]), llm);
    await new TextGradOptimizer(llm).propose(problem, signal);
    const request = llm.requests[3]!;
    const prompt = user(request);
    expect(prompt).toContain("<ROLE>float variable 'float0' (First addend.)</ROLE>");
    expect(prompt).toContain("<VARIABLE> 1.0 </VARIABLE>");
    expect(prompt).toContain("<CONTEXT>Here is a conversation:\n\n<CONVERSATION><LM_INPUT> 1.0 </LM_INPUT>\n\n<LM_OUTPUT> 2.0 </LM_OUTPUT>");
    expect(prompt).toContain("<FEEDBACK>make a bigger</FEEDBACK>");
    expect(prompt).toContain("<CONSTRAINTS>First addend.\nThe value is a number (float): write the number only.</CONSTRAINTS>");
    expect(prompt).toContain("<IMPROVED_VARIABLE>{the improved variable}</IMPROVED_VARIABLE>");
    expect(system(request)).toContain("<IMPROVED_VARIABLE> {improved variable} </IMPROVED_VARIABLE>");
  });

  it("a long value is shown short in <VARIABLE> (first and last 10 words) but whole in <LM_INPUT>", async () => {
    const long = Array.from({ length: 30 }, (_, i) => `w${i}`).join(" ");
    const llm = scriptedLlm(["g", improved("new text")]);
    await new TextGradOptimizer(llm).propose(handProblem([variable("prompt", "text", long)]), signal);
    const short = "w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 (...) w20 w21 w22 w23 w24 w25 w26 w27 w28 w29";
    expect(shortValue(long)).toBe(short);
    expect(shortValue("a b c")).toBe("a b c");
    for (const r of llm.requests) expect(user(r)).toContain(`<VARIABLE> ${short} </VARIABLE>`);
    expect(user(llm.requests[0]!)).toContain(`<LM_INPUT> ${long} </LM_INPUT>`);
  });

  it("as in the reference, the objective kwarg appears in no prompt; max_tokens is honoured", async () => {
    const llm = scriptedLlm(["g", improved("2")]);
    const optimizer = createOptimizer("TextGrad", { objective: "Make the sum three.", max_tokens: 123, unknown_kwarg: true }, llm);
    await optimizer.propose(handProblem([variable("a", "number", 1)]), signal);
    for (const r of llm.requests) {
      expect(user(r)).not.toContain("Make the sum three.");
      expect(r.maxTokens).toBe(123);
    }
  });
});

describe("TextGrad update parsing", () => {
  const propose = async (kind: ParameterKind, value: JsonValue, reply: string) => {
    const llm = scriptedLlm(["g", reply]);
    return new TextGradOptimizer(llm).propose(handProblem([variable("x", kind, value)]), signal);
  };

  it("reads the value between <IMPROVED_VARIABLE> tags and coerces it", async () => {
    expect((await propose("number", 1, "Sure.\n<IMPROVED_VARIABLE>\n 2.5 \n</IMPROVED_VARIABLE>\nDone.")).update).toEqual({ x: 2.5 });
    expect((await propose("integer", 1, improved("4.7"))).update).toEqual({ x: 4 });
    expect((await propose("text", "old", improved("  a better prompt  "))).update).toEqual({ x: "a better prompt" });
    expect((await propose("json", [1], improved("[1, 2, 3]"))).update).toEqual({ x: [1, 2, 3] });
    expect((await propose("json", { k: 1 }, improved("{'k': True}"))).update).toEqual({ x: { k: true } });
  });

  it("an unclosed tag runs to the end of the reply", async () => {
    expect((await propose("number", 1, "<IMPROVED_VARIABLE> 7")).update).toEqual({ x: 7 });
  });

  it("skips a bare value without the tags, as the reference does", async () => {
    for (const [kind, value, reply] of [["number", 1, " 1.25\n"], ["text", "old", "just the new text"]] as const) {
      const proposal = await propose(kind, value, reply);
      expect(proposal.update).toEqual({});
      expect(proposal.notes).toEqual(["x: no <IMPROVED_VARIABLE> block; left unchanged"]);
    }
  });

  it("accepts an OptoPrimeV2-style <variable> block for this variable", async () => {
    const reply = "<reasoning>\nr\n</reasoning>\n<variable>\n<name>x</name>\n<value>\n0.5\n</value>\n</variable>";
    expect((await propose("number", 1, reply)).update).toEqual({ x: 0.5 });
  });

  it.each([
    ["prose that is not a number", "number", "I think it should be a bit larger."],
    ["empty tags", "number", improved("   ")],
    ["empty reply", "text", "   "],
    ["reasoning without a value", "text", "<reasoning>\nno change\n</reasoning>"],
    ["a <variable> block for another name", "number", "<variable>\n<name>y</name>\n<value>\n2\n</value>\n</variable>"],
    ["invalid JSON", "json", improved("[1, 2")],
  ] as const)("%s: the parameter is left out of the update with a note, never a throw", async (_label, kind, reply) => {
    const proposal = await propose(kind, kind === "json" ? [1] : kind === "text" ? "old" : 1, reply);
    expect(proposal.update).toEqual({});
    expect(proposal.notes).toHaveLength(1);
    expect(proposal.notes[0]).toMatch(/^x: .*left unchanged$/);
    expect(proposal.reply).toContain(reply);
  });

  it("one unreadable update does not stop the others", async () => {
    const llm = scriptedLlm(["ga", "gb", improved("no idea"), improved("9")]);
    const proposal = await new TextGradOptimizer(llm).propose(handProblem([variable("a", "number", 1), variable("b", "number", 1)]), signal);
    expect(proposal.update).toEqual({ b: 9 });
    expect(proposal.notes).toEqual([expect.stringMatching(/^a: not a number/)]);
  });

  it("parseImprovedVariable takes the first tagged block", () => {
    expect(parseImprovedVariable(`${improved("one")} and ${improved("two")}`, "x")).toEqual({ ok: true, value: "one" });
  });
});


describe("TextGrad registration, fork and errors", () => {
  it('createOptimizer("TextGrad", {objective: "x"}, llm) builds it; it is a known, available name', () => {
    const optimizer = createOptimizer("TextGrad", { objective: "x" }, scriptedLlm([]));
    expect(optimizer).toBeInstanceOf(TextGradOptimizer);
    expect(optimizer.name).toBe("TextGrad");
    expect(OPTIMIZER_NAMES).toContain("TextGrad");
    expect(UNAVAILABLE_OPTIMIZERS).not.toHaveProperty("TextGrad");
    expect(createOptimizer("TextGrad", [{ objective: "x" }], scriptedLlm([])).name).toBe("TextGrad");
  });

  it("fork() is an independent optimizer that behaves the same", async () => {
    const llm = scriptedLlm(["g", improved("2"), "g", improved("2")]);
    const original = createOptimizer("TextGrad", { objective: "x", max_tokens: 99 }, llm);
    const fork = original.fork();
    expect(fork).not.toBe(original);
    expect(fork.name).toBe("TextGrad");
    const problem = handProblem([variable("a", "number", 1)]);
    const fromFork = await fork.propose(problem, signal);
    const fromOriginal = await original.propose(problem, signal);
    expect(fromFork).toEqual(fromOriginal);
    expect(llm.requests.slice(0, 2)).toEqual(llm.requests.slice(2, 4));
    expect(llm.requests[0]!.maxTokens).toBe(99);
  });

  it("an aborted signal stops it before any call", async () => {
    const llm = scriptedLlm(["g", improved("2")]);
    const controller = new AbortController();
    controller.abort(new Error("stopped"));
    await expect(new TextGradOptimizer(llm).propose(handProblem([variable("a", "number", 1)]), controller.signal)).rejects.toThrow("stopped");
    expect(llm.requests).toHaveLength(0);
  });

  it("a failing LLM call propagates (like every optimizer); only replies are tolerated", async () => {
    const llm = scriptedLlm(["g"]);
    await expect(new TextGradOptimizer(llm).propose(handProblem([variable("a", "number", 1)]), signal)).rejects.toThrow(/unexpected call #2/);
  });

  it("on the stub LLM it proposes new numbers for every parameter", async () => {
    const llm = createStubLlm(7);
    const { problem } = await realProblem(await multiParam(), llm);
    const proposal = await new TextGradOptimizer(llm).propose(problem, signal);
    expect(Object.keys(proposal.update).sort()).toEqual(["a", "b"]);
    for (const value of Object.values(proposal.update)) expect(typeof value).toBe("number");
    expect(proposal.notes).toEqual([]);
  });
});
