import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { defineTraceModel } from "../../../src/opt/trace/model.js";
import type { JsSandbox } from "../../sandbox/js-sandbox.js";
import { negativeAbsoluteError } from "../guides.js";
import { sandboxRunner } from "./sandbox-runner.js";

const EMIT = `function emit(value) {
  return value;
}`;

/**
 * Trace-Bench's NumericParamAgentModel: a trainable float `value` (0.0) returned through the
 * trainable op `emit`, whose source is a second parameter and runs in the JavaScript sandbox.
 * The target is 3.0; the initial score −3.0.
 */
export function numericParamTask(js: JsSandbox): TaskBundle {
  const model = defineTraceModel({
    name: "NumericParamAgentModel",
    parameters: [{ name: "value", kind: "number", value: 0.0, description: "A number to tune." }],
    trainableOps: [{ name: "emit", source: EMIT, run: sandboxRunner(js, EMIT) }],
    forward: (self) => self.call("emit", { value: self.param("value") }),
  });
  return {
    taskId: "internal:numeric_param",
    parameters: model.parameters,
    agent: model.agent,
    guide: negativeAbsoluteError,
    train_dataset: { inputs: [null], infos: [3.0] },
    optimizer_kwargs: { objective: "Match the numeric target value.", memory_size: 5 },
    metadata: { benchmark: "internal", entry: "NumericParamAgentModel" },
  };
}
