import { afterAll, describe, expect, it } from "vitest";
import { builtinTaskRegistry } from "../../../adapters/tasks/index.js";
import { BUILTIN_STUB_ALTERNATIVES } from "../../../adapters/tasks/stub-alternatives.js";
import { initialValues, trainableParameters } from "../../../src/domain/parameter.js";
import { evaluationSplit, scoreDataset } from "../../../src/tasks/score-dataset.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";

const registry = builtinTaskRegistry();
afterAll(() => registry.close()); // the JavaScript sandbox's workers
/** The TypeScript tasks (LLM4AD's are Python: test/int/llm4ad and test/e2e/llm4ad). */
const JS_SUITES = ["trace_examples", "internal"];

async function initialScore(taskId: string) {
  const bundle = await registry.load(taskId, {});
  return scoreDataset(bundle, initialValues(bundle.parameters), evaluationSplit(bundle));
}

describe("built-in tasks (spec §6.5)", () => {
  it.each([
    ["internal:numeric_param", -3.0],
    ["internal:code_param", 1.0],
    ["internal:multi_param", -1.0],
    ["internal:non_trainable", 1.0],
    ["trace_examples:greeting_stub", 1.0],
    ["trace_examples:train_single_node_stub", -3.0],
  ])("%s scores %d initially", async (taskId, expected) => {
    const result = await initialScore(taskId);
    expect(result.score).toBe(expected);
    expect(result.split).toBe("train_dataset");
    expect(result.feedback).toMatch(/^train_dataset: mean over 1 examples\. /);
  });

  it("numeric_param improves as its value approaches the target", async () => {
    const bundle = await registry.load("internal:numeric_param", {});
    const result = await scoreDataset(bundle, { value: 2.5 }, evaluationSplit(bundle));
    expect(result.score).toBe(-0.5);
    expect(result.feedback).toContain("target=3");
  });

  it("multi_param scores the sum of its two parameters", async () => {
    const bundle = await registry.load("internal:multi_param", {});
    expect((await scoreDataset(bundle, { a: 1.0, b: 2.0 }, evaluationSplit(bundle))).score).toBe(0);
    expect((await scoreDataset(bundle, { a: 5.0, b: 2.0 }, evaluationSplit(bundle))).score).toBe(-4);
  });

  it("greeting_stub runs its trainable compose function and checks the exact greeting", async () => {
    const bundle = await registry.load("trace_examples:greeting_stub", {});
    const wrong = await scoreDataset(bundle, { ...initialValues(bundle.parameters), greeting: "Hi" }, evaluationSplit(bundle));
    expect(wrong.score).toBe(0);
    expect(wrong.feedback).toContain("Expected: Hello, Sam!");
    const broken = await scoreDataset(bundle, { greeting: "Hello", compose: "(g, q) => { throw new Error('boom') }" }, evaluationSplit(bundle));
    expect(broken.score).toBeNull();
    expect(broken.feedback).toBe("train_dataset: agent_error[0]: Error: boom");
  });

  it("train_single_node_stub scores -1 when its function returns something that is not a number", async () => {
    const bundle = await registry.load("trace_examples:train_single_node_stub", {});
    const result = await scoreDataset(bundle, { value: 0, forward: "(v) => 'three'" }, evaluationSplit(bundle));
    expect(result.score).toBe(-1);
  });

  it("every bundle carries the keys of the bundle protocol and a memory size", async () => {
    for (const taskId of registry.list(JS_SUITES)) {
      const bundle = await registry.load(taskId, {});
      expect(bundle.taskId).toBe(taskId);
      expect(bundle.train_dataset.inputs.length).toBe(bundle.train_dataset.infos.length);
      // The multi-objective tasks keep the original's memory size and metadata (benchmark "multiobjective", its entry name).
      const multiobjective = taskId.startsWith("internal:multiobjective_");
      expect(bundle.optimizer_kwargs).toMatchObject({ objective: expect.any(String), memory_size: taskId === "internal:non_trainable" ? 1 : multiobjective ? 10 : 5 });
      expect(bundle.metadata).toMatchObject(multiobjective ? { benchmark: "multiobjective" } : { benchmark: taskId.split(":")[0], entry: bundle.agent.name });
    }
  });

  it("only internal:non_trainable has no trainable parameters", async () => {
    for (const taskId of registry.list(JS_SUITES)) {
      const bundle = await registry.load(taskId, {});
      expect(trainableParameters(bundle.parameters).length === 0).toBe(taskId === "internal:non_trainable");
    }
  });

  it("their stub alternatives belong to trainable non-numeric parameters and include the initial value", async () => {
    const parameters = await Promise.all(registry.list(JS_SUITES).map(async (taskId) => (await registry.load(taskId, {})).parameters));
    for (const [name, values] of Object.entries(BUILTIN_STUB_ALTERNATIVES)) {
      const owners = parameters.flat().filter((p) => p.name === name);
      expect(owners, name).toHaveLength(1);
      expect(owners[0]!.trainable, name).toBe(true);
      expect(["text", "code", "json"], name).toContain(owners[0]!.kind);
      expect(values, name).toContainEqual(owners[0]!.value);
    }
  });

  it("each load builds a fresh bundle, so jobs never share state", async () => {
    const a = await registry.load("internal:multi_param", {});
    const b = await registry.load("internal:multi_param", {});
    expect(a).not.toBe(b);
    expect(a.parameters).not.toBe(b.parameters);
  });
});

describe("scoreDataset edge cases (spec §5.3)", () => {
  const base = async (): Promise<TaskBundle> => registry.load("internal:numeric_param", {});

  it("an empty split has a null score and says so", async () => {
    const bundle = await base();
    const result = await scoreDataset(bundle, { value: 0 }, { name: "train_dataset", dataset: { inputs: [], infos: [] } });
    expect(result).toMatchObject({ score: null, feedback: "train_dataset: empty_dataset" });
  });

  it("a guide that throws ends the evaluation with eval_error and the example index", async () => {
    const bundle: TaskBundle = { ...(await base()), guide: { name: "g", evaluate: () => { throw new Error("bad info"); } } };
    const result = await scoreDataset(bundle, { value: 0 }, evaluationSplit(bundle));
    expect(result).toMatchObject({ score: null, feedback: "train_dataset: eval_error[0]: bad info" });
  });

  it("a non-finite score is reported as non_numeric_score", async () => {
    const bundle: TaskBundle = { ...(await base()), guide: { name: "g", evaluate: () => ({ score: NaN, feedback: "??" }) } };
    const result = await scoreDataset(bundle, { value: 0 }, evaluationSplit(bundle));
    expect(result).toMatchObject({ score: null, feedback: "train_dataset: non_numeric_score[0]: ??" });
  });

  it("prefers a non-empty validation split and averages over it", async () => {
    const bundle: TaskBundle = { ...(await base()), validate_dataset: { inputs: [null, null], infos: [1, 5] } };
    const split = evaluationSplit(bundle);
    expect(split.name).toBe("validate_dataset");
    const result = await scoreDataset(bundle, { value: 2 }, split);
    expect(result.score).toBe(-2);
    expect(result.exampleScores).toEqual([-1, -3]);
    expect(result.feedback).toBe("validate_dataset: mean over 2 examples. target=1.0 | target=5.0");
  });
});
