/**
 * The Trace graph (src/opt/trace): a model's forward pass records nodes, and a batch's problem is
 * summarized from them as the reference's GraphPropagator and `summarize` compute it.
 */
import { describe, expect, it } from "vitest";
import { ExecutionError } from "../../../../src/opt/trace/operation.js";
import { codeParameterName, defineTraceModel, type CodeRunner } from "../../../../src/opt/trace/model.js";
import { summarizeTrace } from "../../../../src/opt/trace/summary.js";
import { rolloutOne } from "../../../../src/opt/rollout.js";
import { negativeAbsoluteError } from "../../../../adapters/tasks/guides.js";

const context = {};
const signal = new AbortController().signal;
/** Runs a trainable op's source in-process (the tasks use the sandbox; the graph does not care). */
const runLocally: CodeRunner = async (source, args) => (new Function(`return (${source})`)() as (...a: unknown[]) => unknown)(...args);

const scale = { name: "scale", documentation: "Multiplies x by k." };
const shift = { name: "shift", documentation: "Adds b to x." };

/** norm(x) → scale(·, k) with a fixed k → shift(·, b) with a trainable b → the trainable op finish. */
const model = defineTraceModel({
  name: "LineModel",
  parameters: [
    { name: "k", kind: "number", value: 2, description: "The slope.", trainable: false },
    { name: "b", kind: "number", value: 1, description: "The offset." },
  ],
  trainableOps: [{ name: "finish", source: "function finish(y) {\n  return y;\n}", run: runLocally }],
  async forward(self, x) {
    const norm = await self.op({ name: "norm", documentation: "Makes x a number." }, { x }, ({ x: v }) => Number(v));
    const scaled = await self.op(scale, { x: norm, k: self.param("k") }, ({ x: v, k }) => Number(v) * Number(k));
    const shifted = await self.op(shift, { x: scaled, b: self.param("b") }, ({ x: v, b }) => Number(v) + Number(b));
    return self.call("finish", { y: shifted });
  },
});

describe("a model's parameters", () => {
  it("are its parameters and its trainable ops' code, in attribute order (an op under its own name)", () => {
    expect(model.parameters.map((p) => [p.name, p.kind, p.trainable])).toEqual([
      ["b", "number", true],
      [codeParameterName("finish"), "code", true],
      ["k", "number", false],
    ]);
    expect(model.parameters[1]!.description).toBe("The code should start with:\nfunction finish(y) {");
  });
});

describe("summarizing a batch's graph", () => {
  it("names nodes per problem, keeps only the subgraph feedback reaches, and sorts roots into variables and inputs", async () => {
    const values = { b: 1, [codeParameterName("finish")]: "function finish(y) {\n  return y;\n}", k: 2 };
    const outputs = [await model.agent.forward("3", values, context), await model.agent.forward("4", values, context)];
    expect(outputs.map((o) => o.value)).toEqual([7, 9]);
    const problem = summarizeTrace(outputs, "ID [0]: a\nID [1]: b\n", model.parameters);
    // scale depends on no trainable parameter (k is fixed): feedback stops there, so it is shown as an input
    // and norm, k and x never appear.
    expect(problem.code.split("\n")).toEqual([
      "shift0 = shift(x=scale0, b=float0)",
      "shift1 = shift(x=scale1, b=float0)",
      "eval0 = eval(self=LineModel0, y=shift0, __code=__code0)",
      "eval1 = eval(self=LineModel0, y=shift1, __code=__code0)",
      "batchify0 = batchify(args_0=eval0, args_1=eval1)",
    ]);
    // Roots in the order feedback reached them: one model object and one node per parameter for the whole batch.
    expect(problem.variables.map((v) => [v.name, v.parameter, v.value])).toEqual([
      ["__code0", codeParameterName("finish"), values[codeParameterName("finish")]],
      ["float0", "b", 1],
    ]);
    expect(problem.inputs.map((n) => [n.name, n.type, n.value])).toEqual([
      ["LineModel0", "LineModel", "<LineModel object>"],
      ["scale0", "float", "6.0"],
      ["scale1", "float", "8.0"],
    ]);
    expect(problem.others.map((n) => n.name)).toEqual(["shift0", "shift1", "eval0", "eval1"]);
    expect(problem.outputs).toEqual([{ name: "batchify0", type: "str", value: "ID [0]: 7.0\nID [1]: 9.0\n" }]);
    expect(Object.keys(problem.documentation)).toEqual(["shift", "eval", "batchify"]);
    // TextGrad's view: the same nodes, the variables in the model's parameter order.
    expect(problem.graph!.parameterOrder).toEqual(["float0", "__code0"]);
    expect(problem.graph!.nodes[problem.graph!.output]!.name).toBe("batchify0");
  });

  it("a parameter the task marks fixed is an input, whatever the model declared", async () => {
    const values = { b: 1, [codeParameterName("finish")]: "function finish(y) {\n  return y;\n}", k: 2 };
    const output = await model.agent.forward("3", values, context);
    const fixed = model.parameters.map((p) => (p.name === "b" ? { ...p, trainable: false } : p));
    const problem = summarizeTrace([output], "ID [0]: a\n", fixed);
    expect(problem.variables.map((v) => v.parameter)).toEqual([codeParameterName("finish")]);
  });
});

describe("a failing op", () => {
  it("raises ExecutionError with an exception node on the op's inputs; a rollout keeps it as the output", async () => {
    const values = { b: 1, [codeParameterName("finish")]: "function finish(y) {\n  throw new RangeError('too big');\n}", k: 2 };
    await expect(model.agent.forward("3", values, context)).rejects.toBeInstanceOf(ExecutionError);
    await expect(model.agent.run("3", values, context)).rejects.toThrow("(RangeError) too big");
    const rollout = await rolloutOne(model.agent, negativeAbsoluteError, values, { input: "3", info: 7 }, { signal, minScore: -10 });
    expect(rollout).toMatchObject({ score: -10, feedback: "(RangeError) too big" });
    expect(rollout.trace!.kind).toBe("exception");
    const problem = summarizeTrace([rollout.trace!], "ID [0]: (RangeError) too big\n", model.parameters);
    expect(problem.code.split("\n").slice(-2)).toEqual(["exception_eval0 = eval(self=LineModel0, y=shift0, __code=__code0)", "batchify0 = batchify(args_0=exception_eval0)"]);
    expect(problem.variables.map((v) => v.parameter)).toEqual([codeParameterName("finish"), "b"]);
  });
});
