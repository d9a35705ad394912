/**
 * The prompts each dialect sends for a small two-parameter problem (internal:multi_param, two
 * examples so batching shows): sections in order, the value formats, and length limits.
 */
import { describe, expect, it } from "vitest";
import { createOptimizer } from "../../../../src/opt/optimizers/optimizer-registry.js";
import type { PromptOptimizer } from "../../../../src/opt/optimizers/prompt-optimizer.js";
import { jsonReply, scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { contextAndProblem, expectInOrder, loadBundle, problemOf, signal, systemPrompt, userPrompt, variable } from "./fixtures.js";

const OBJECTIVE = "Change a and b so that their sum equals the target value.";
/** multi_param's traced graph on two examples: one add per example, then the batch. */
const CODE = "add0 = add(x=float0, y=float1)\nadd1 = add(x=float0, y=float1)\nbatchify0 = batchify(args_0=add0, args_1=add1)";
const TWO_EXAMPLES = [
  { input: null, info: 3.0 },
  { input: "x", info: 5.0 },
];

/** The first request an optimizer of this name sends for multi_param's initial values. */
async function firstRequest(name: string, reply: string, optimizerKwargs = {}) {
  const bundle = await loadBundle();
  const llm = scriptedLlm([reply]);
  const { context, problem } = await contextAndProblem(bundle, llm, name, optimizerKwargs, TWO_EXAMPLES);
  await context.createOptimizer().propose(problem, signal);
  expect(llm.requests).toHaveLength(1);
  return { request: llm.requests[0]!, problem };
}

describe("OptoPrime (V1) prompt", () => {
  it("contains every section in order with the expected variable lines", async () => {
    const { request, problem } = await firstRequest("OptoPrime", jsonReply({ float0: 2 }));
    const user = userPrompt(request);
    const [docName, doc] = Object.entries(problem.documentation)[0]!;
    expectInOrder(user, [
      "Now you see the problem instance:",
      "================================",
      `#Instruction\n${OBJECTIVE}\n`,
      `\n#Code\n${CODE}\n`,
      `\n#Documentation\n[${docName}] ${doc}\n`,
      "\n#Variables\n(float) float0=1.0\n(float) float1=1.0\n",
      "\n#Constraints\n(float) float0: First addend.\n(float) float1: Second addend.\n",
      "\n#Inputs\n\n",
      "\n#Others\n(float) add0=2.0\n(float) add1=2.0\n",
      "\n#Outputs\n(str) batchify0=ID [0]: 2.0\nID [1]: 2.0\n",
      "\n#Feedback\nID [0]: target=3",
      "\nID [1]: target=5",
      "================================",
    ]);
    expect(user.trimEnd().endsWith("Your response:")).toBe(true);
    // V1 has no XML and no memory on a first call.
    expect(user).not.toContain("<variable");
    expect(user).not.toContain("in the past");
  });

  it("has a system prompt with the section legend, the JSON output format and the TERMINATE rule", async () => {
    const { request } = await firstRequest("OptoPrime", jsonReply({ a: 2 }));
    const system = systemPrompt(request);
    expectInOrder(system, ["#Instruction", "#Code", "#Documentation", "#Variables", "#Constraints", "#Inputs", "#Others", "#Outputs", "#Feedback"]);
    expect(system).toContain('"reasoning":');
    expect(system).toContain('"answer":');
    expect(system).toContain('"suggestion": {');
    expect(system).toMatch(/If no change is needed, output TERMINATE/);
    expect(request.messages.map((m) => m.role)).toEqual(["system", "user"]);
  });

  it("writes code variables as `(code) name:source`, like OpenTrace", async () => {
    const optimizerProblem = problemOf([variable("f", "code", "def f(x): return x", { description: "The function f." })]);
    const llm = scriptedLlm([jsonReply({})]);
    const optimizer = createOptimizer("OptoPrime", {}, llm) as PromptOptimizer;
    const user = userPrompt({ messages: optimizer.messages(optimizerProblem) });
    expect(user).toContain("\n#Variables\n(code) f:def f(x): return x\n");
    expect(user).toContain("\n#Constraints\n(code) f: The function f.\n");
  });
});

describe("OptoPrimeV2 prompt", () => {
  it("contains every markdown section in order, XML variables with constraints and XML nodes", async () => {
    const { request, problem } = await firstRequest("OptoPrimeV2", xmlReply({ a: 2 }));
    const user = userPrompt(request);
    const [docName, doc] = Object.entries(problem.documentation)[0]!;
    expectInOrder(user, [
      "Now you see the problem instance:",
      "================================",
      `# Instruction\n${OBJECTIVE}\n`,
      `\n# Code\n${CODE}\n`,
      `\n# Documentation\n[${docName}] ${doc}\n`,
      '\n# Variables\n<variable name="float0" type="float">\n<value>\n1.0\n</value>\n<constraint>\nFirst addend.\n</constraint>\n</variable>\n' +
        '<variable name="float1" type="float">\n<value>\n1.0\n</value>\n<constraint>\nSecond addend.\n</constraint>\n</variable>\n',
      "\n# Inputs\n\n",
      '\n# Others\n<node name="add0" type="float">\n<value>\n2.0\n</value>\n</node>\n',
      '\n# Outputs\n<node name="batchify0" type="str">\n<value>\nID [0]: 2.0\nID [1]: 2.0\n\n</value>\n</node>\n',
      "\n# Feedback\nID [0]: target=3",
      "\nID [1]: target=5",
      "================================",
    ]);
    expect(user).not.toContain("# Constraints");
    expect(user.endsWith("What are your suggestions on variables float0, float1?\n\nYour response:")).toBe(true);
  });

  it("has a system prompt with the XML output format and the TERMINATE rule", async () => {
    const { request } = await firstRequest("OptoPrimeV2", xmlReply({ a: 2 }));
    const system = systemPrompt(request);
    expectInOrder(system, ["#Instruction", "#Code", "#Documentation", "#Variables", "#Inputs", "#Others", "#Outputs", "#Feedback"]);
    expectInOrder(system, ["<reasoning>", "</reasoning>", "<variable>", "<name>", "</name>", "<value>", "</value>", "</variable>"]);
    expect(system).toContain('<variable name="variable_name" type="data_type">');
    expect(system).toContain('<node name="node_name" type="data_type">');
    expect(system).toMatch(/If no change is needed, output only TERMINATE/);
    expect(system).not.toContain('"suggestion"');
  });

  it("cuts node values over 2000 characters but never variables", async () => {
    const long = "y".repeat(2500);
    const p = problemOf([variable("t", "text", "v".repeat(2500))], {
      inputs: [{ name: "input", type: "str", value: long }],
      outputs: [{ name: "output", type: "str", value: "o".repeat(2001) }],
    });
    const optimizer = createOptimizer("OptoPrimeV2", {}, scriptedLlm([])) as PromptOptimizer;
    const user = userPrompt({ messages: optimizer.messages(p) });
    expect(user).toContain(`<value>\n${"y".repeat(2000)}...(skipped due to length limit)\n</value>\n</node>`);
    expect(user).not.toContain("y".repeat(2001));
    expect(user).toContain(`${"o".repeat(2000)}...(skipped due to length limit)`);
    expect(user).toContain(`<value>\n${"v".repeat(2500)}\n</value>`);
  });

  it("writes a code variable with type code and a constraint block even without a description", () => {
    const p = problemOf([variable("f", "code", "def f(x):\n    return x", { description: "" })]);
    const optimizer = createOptimizer("OptoPrimeV2", {}, scriptedLlm([])) as PromptOptimizer;
    const user = userPrompt({ messages: optimizer.messages(p) });
    expect(user).toContain('<variable name="f" type="code">\n<value>\ndef f(x):\n    return x\n</value>\n<constraint>\n\n</constraint>\n</variable>');
  });
});

describe("OPROv2 prompt", () => {
  it("has the reduced template: problem context, solution, feedback, then the revised-solutions question", async () => {
    const { request } = await firstRequest("OPROv2", xmlReply({ a: 2 }));
    const user = userPrompt(request);
    expectInOrder(user, [
      "================================",
      `# Problem Context\n${OBJECTIVE}\n`,
      '\n# Solution\n<solution name="float0" type="float">\n<value>\n1.0\n</value>\n<constraint>\nFirst addend.\n</constraint>\n</solution>\n' +
        '<solution name="float1" type="float">\n<value>\n1.0\n</value>\n<constraint>\nSecond addend.\n</constraint>\n</solution>\n',
      "\n# Feedback\nID [0]: target=3",
      "\nID [1]: target=5",
      "================================",
    ]);
    for (const absent of ["# Code", "# Documentation", "# Inputs", "# Outputs", "<node"]) expect(user).not.toContain(absent);
    expect(user.endsWith("What are your revised solutions on float0, float1?\n\nYour response:")).toBe(true);
    const system = systemPrompt(request);
    expect(system).toContain('<solution name="variable_name" type="data_type">');
    expect(system).toContain("<reasoning>");
    expect(system).toContain("TERMINATE");
  });

  it("uses its own default objective when the kwargs give none", async () => {
    const llm = scriptedLlm([xmlReply({})]);
    const optimizer = createOptimizer("OPROv2", {}, llm) as PromptOptimizer;
    expect(optimizer.objective).toBe("Propose a new solution that will incorporate the feedback.");
    const user = userPrompt({ messages: optimizer.messages(problemOf([variable("a", "number", 1.5)])) });
    expect(user).toContain("# Problem Context\nPropose a new solution that will incorporate the feedback.\n");
  });

  it("cuts a long solution value at 2000 characters but keeps its closing tags", () => {
    const p = problemOf([variable("t", "text", "z".repeat(2500)), variable("u", "number", 2.5)]);
    const optimizer = createOptimizer("OPROv2", {}, scriptedLlm([])) as PromptOptimizer;
    const user = userPrompt({ messages: optimizer.messages(p) });
    expect(user).toContain(`<solution name="t" type="str">\n<value>\n${"z".repeat(2000)}...(skipped due to length limit)\n</value>\n<constraint>\nThe t.\n</constraint>\n</solution>`);
    expect(user).not.toContain("z".repeat(2001));
    expect(user).toContain('<solution name="u" type="float">\n<value>\n2.5\n</value>');
  });

  it("cuts a code solution's body at 2000 characters but keeps its definition line whole", () => {
    const body = `    return ${"1 + ".repeat(700)}x`;
    const code = `def f(x):\n${body}`;
    const optimizer = createOptimizer("OPROv2", {}, scriptedLlm([])) as PromptOptimizer;
    const user = userPrompt({ messages: optimizer.messages(problemOf([variable("f", "code", code)])) });
    expect(user).toContain(`<solution name="f" type="code">\n<value>\ndef f(x):\n${body.slice(0, 2000)}...(skipped due to length limit)\n</value>`);
  });
});

describe("OPRO prompt", () => {
  it("shows the example history as JSON, then the objective", async () => {
    const { request } = await firstRequest("OPRO", jsonReply({ a: 2 }));
    const user = userPrompt(request);
    expect(user.startsWith("Below are some example variables and their feedbacks.\n\n")).toBe(true);
    const [history, rest] = user.split("================================");
    const example = JSON.parse(history!.replace("Below are some example variables and their feedbacks.", "").trim()) as { variables: unknown; feedback: string };
    expect(example.variables).toEqual({ float0: 1, float1: 1 });
    expect(example.feedback).toMatch(/^ID \[0\]: target=3\.0\nID \[1\]: target=5\.0\n$/);
    expect(history).toContain('{\n    "variables": {\n        "float0": 1');
    expect(rest!.trimEnd().endsWith(`\n${OBJECTIVE}`)).toBe(true);
    const system = systemPrompt(request);
    expect(system).toContain('"suggestion": {');
    expect(system).toContain("TERMINATE");
    // OptoPrime's JSON format (reasoning, answer, suggestion), without the legend of a problem's parts.
    expect(system).toContain('"answer":');
    expect(system).not.toContain("A problem has these parts");
  });
});

describe("objective", () => {
  it.each(["OptoPrime", "OptoPrimeV2", "OPROv2", "OPRO"])("%s takes the objective from the bundle's optimizer_kwargs", async (name) => {
    const { request } = await firstRequest(name, name.includes("V2") || name === "OPROv2" ? xmlReply({}) : jsonReply({}));
    expect(userPrompt(request)).toContain(OBJECTIVE);
  });

  it("an explicit objective kwarg replaces the bundle's", async () => {
    const { request } = await firstRequest("OptoPrimeV2", xmlReply({}), { objective: "Make it three." });
    expect(userPrompt(request)).toContain("# Instruction\nMake it three.\n");
    expect(userPrompt(request)).not.toContain(OBJECTIVE);
  });
});

describe("V1 length limit", () => {
  it("cuts node values over 2000 characters but never variables", () => {
    const p = problemOf([variable("t", "text", "v".repeat(2500))], { inputs: [{ name: "input", type: "str", value: "y".repeat(2500) }] });
    const optimizer = createOptimizer("OptoPrime", {}, scriptedLlm([])) as PromptOptimizer;
    const user = userPrompt({ messages: optimizer.messages(p) });
    expect(user).toContain(`(str) input=${"y".repeat(2000)}...(skipped due to length limit)\n`);
    expect(user).not.toContain("y".repeat(2001));
    expect(user).toContain(`(str) t=${"v".repeat(2500)}\n`);
  });
});
