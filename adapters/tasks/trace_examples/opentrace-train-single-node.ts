/**
 * Trace-Bench's trace_examples:opentrace_train_single_node (OpenTrace's
 * examples/train_single_node.py): a trainable integer (0) returned through the trainable
 * function emit, whose JavaScript source runs in the JavaScript sandbox. The target is read from
 * the info "Correct answer is: 3"; the score is −|response − 3|, so the initial score is −3.0.
 */
import type { Guide } from "../../../src/domain/guide.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { defineTraceModel } from "../../../src/opt/trace/model.js";
import type { JsSandbox } from "../../sandbox/js-sandbox.js";
import { sandboxRunner } from "../internal/sandbox-runner.js";

const EMIT = `function emit(value) {
  return value;
}`;

/** Python's float() of a value, or null where it raises. */
export function pythonFloat(value: unknown): number | null {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value !== "string") return null;
  const text = value.trim().replaceAll(/(?<=\d)_(?=\d)/g, "");
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return Number(text);
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(text);
  if (special) return special[2]!.toLowerCase() === "nan" ? Number.NaN : special[1] === "-" ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  return null;
}

/** The original's SingleNodeRegressionGuide: the reference is what follows the info's ":", the feedback names it as written. */
export const singleNodeRegressionGuide: Guide = {
  name: "trace_bench.examples.opentrace_train_single_node.SingleNodeRegressionGuide",
  evaluate(_input, response, info) {
    let reference = String(info);
    if (reference.includes(":")) reference = reference.slice(reference.indexOf(":") + 1).trim();
    const got = pythonFloat(response);
    const want = pythonFloat(reference);
    const score = got === null || want === null ? -1 : -Math.abs(got - want);
    return { score, feedback: `target=${reference}` };
  },
};

export function opentraceTrainSingleNodeTask(js: JsSandbox): TaskBundle {
  const model = defineTraceModel({
    name: "OpenTraceSingleNodeAgent",
    parameters: [{ name: "value", kind: "integer", value: 0, description: "An integer to guess" }],
    trainableOps: [{ name: "emit", source: EMIT, run: sandboxRunner(js, EMIT) }],
    forward: (self) => self.call("emit", { value: self.param("value") }),
  });
  return {
    taskId: "trace_examples:opentrace_train_single_node",
    parameters: model.parameters,
    agent: model.agent,
    guide: singleNodeRegressionGuide,
    train_dataset: { inputs: [null], infos: ["Correct answer is: 3"] },
    optimizer_kwargs: { objective: "Guess the scalar value hidden in the training info.", memory_size: 5 },
    metadata: { benchmark: "trace_examples", entry: "OpenTraceSingleNodeAgent", source_example: "OpenTrace/examples/train_single_node.py" },
  };
}
