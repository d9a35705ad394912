/**
 * The two OpenTrace examples of the trace_examples suite (issue 34): their trainable functions
 * run in the JavaScript sandbox, initial scores are the original's (greeting 1.0 on both
 * examples, single node −3.0), and a changed function changes what the agent computes.
 */
import { afterAll, describe, expect, it } from "vitest";
import { builtinTaskRegistry } from "../../../adapters/tasks/index.js";
import { pythonFloat, singleNodeRegressionGuide } from "../../../adapters/tasks/trace_examples/opentrace-train-single-node.js";
import { greetingFeedbackGuide } from "../../../adapters/tasks/trace_examples/opentrace-greeting.js";
import { initialValues } from "../../../src/domain/parameter.js";
import { evaluationSplit, scoreDataset } from "../../../src/tasks/score-dataset.js";

const registry = builtinTaskRegistry();
afterAll(() => registry.close());

describe("trace_examples:opentrace_greeting", () => {
  it("has the original's trainables: two instructions and the code of decide_lang, extract_name and greet", async () => {
    const bundle = await registry.load("trace_examples:opentrace_greeting", {});
    expect(bundle.parameters.filter((p) => p.trainable).map((p) => [p.name, p.kind])).toEqual([
      ["__code_decide_lang", "code"],
      ["__code_extract_name", "code"],
      ["__code_greet", "code"],
      ["instruct1", "text"],
      ["instruct2", "text"],
    ]);
    expect(bundle.train_dataset).toEqual({ inputs: ["Hola, soy Juan.", "Hello, I am Sam."], infos: ["es", "en"] });
    expect(bundle.metadata).toMatchObject({ entry: "OpenTraceGreetingAgent", source_example: "OpenTrace/examples/greeting.py" });
  });

  it("greets Juan in Spanish and Sam in English: initial score 1.0", async () => {
    const bundle = await registry.load("trace_examples:opentrace_greeting", {});
    const values = initialValues(bundle.parameters);
    expect(await bundle.agent.run("Hola, soy Juan.", values, {})).toBe("Hola, Juan!");
    expect(await bundle.agent.run("Hello, I am Sam.", values, {})).toBe("Hello, Sam!");
    expect(await bundle.agent.run("Hey there Kim!", values, {})).toBe("Hello, Kim!");
    const result = await scoreDataset(bundle, values, evaluationSplit(bundle));
    expect(result.score).toBe(1);
    expect(result.feedback).toBe("train_dataset: mean over 2 examples. Correct | Correct");
  });

  it("a greet that always answers in English fails the Spanish example (its code runs in the sandbox)", async () => {
    const bundle = await registry.load("trace_examples:opentrace_greeting", {});
    const values = { ...initialValues(bundle.parameters), __code_greet: 'function greet(lang, user_name) {\n  return "Hello, " + user_name + "!";\n}' };
    const result = await scoreDataset(bundle, values, evaluationSplit(bundle));
    expect(result.score).toBe(0.5);
    expect(result.feedback).toContain("Expected language=es");
    const broken = await scoreDataset(bundle, { ...values, __code_extract_name: "function extract_name() { throw new Error('no name') }" }, evaluationSplit(bundle));
    expect(broken.score).toBeNull();
    expect(broken.feedback).toMatch(/agent_error\[0\]: .*no name/);
  });

  it("its guide checks the greeting word only", () => {
    expect(greetingFeedbackGuide.evaluate(null, "Hola amigo", "es", {})).toEqual({ score: 1, feedback: "Correct" });
    expect(greetingFeedbackGuide.evaluate(null, "Hola amigo", "en", {})).toEqual({ score: 0, feedback: "Expected language=en" });
  });
});

describe("trace_examples:opentrace_train_single_node", () => {
  it("emits its integer through the sandboxed emit: −3.0 initially, 0 at the target", async () => {
    const bundle = await registry.load("trace_examples:opentrace_train_single_node", {});
    expect(bundle.parameters.map((p) => [p.name, p.kind, p.value])).toEqual([
      ["__code_emit", "code", "function emit(value) {\n  return value;\n}"],
      ["value", "integer", 0],
    ]);
    const initial = await scoreDataset(bundle, initialValues(bundle.parameters), evaluationSplit(bundle));
    expect([initial.score, initial.feedback]).toEqual([-3, "train_dataset: mean over 1 examples. target=3"]);
    expect((await scoreDataset(bundle, { ...initialValues(bundle.parameters), value: 3 }, evaluationSplit(bundle))).score).toBe(0);
    const doubled = { ...initialValues(bundle.parameters), value: 2, __code_emit: "function emit(value) { return value * 2; }" };
    expect((await scoreDataset(bundle, doubled, evaluationSplit(bundle))).score).toBe(-1);
  });

  it("scores a response Python's float() cannot read as −1", () => {
    expect(singleNodeRegressionGuide.evaluate(null, "three", "Correct answer is: 3", {})).toEqual({ score: -1, feedback: "target=3" });
    expect(singleNodeRegressionGuide.evaluate(null, " 2.5 ", "Correct answer is: 3", {})).toEqual({ score: -0.5, feedback: "target=3" });
    expect(pythonFloat("1_000")).toBe(1000);
    expect(pythonFloat("-inf")).toBe(Number.NEGATIVE_INFINITY);
    expect(pythonFloat(null)).toBeNull();
    expect(pythonFloat(true)).toBe(1);
  });
});
