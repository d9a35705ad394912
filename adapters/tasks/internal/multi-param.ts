import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { defineTraceModel } from "../../../src/opt/trace/model.js";
import { negativeAbsoluteError } from "../guides.js";

/** Trace's `add` operator. */
const ADD = { name: "add", documentation: "This is an add operator of x and y." };

/** A model with two numbers whose sum should be 3.0; the output is add(a, b). Initial score −1.0. */
export function multiParamTask(): TaskBundle {
  const model = defineTraceModel({
    name: "MultiParamAgentModel",
    parameters: [
      { name: "a", kind: "number", value: 1.0, description: "First addend." },
      { name: "b", kind: "number", value: 1.0, description: "Second addend." },
    ],
    forward: (self) => self.op(ADD, { x: self.param("a"), y: self.param("b") }, ({ x, y }) => Number(x) + Number(y)),
  });
  return {
    taskId: "internal:multi_param",
    parameters: model.parameters,
    agent: model.agent,
    guide: negativeAbsoluteError,
    train_dataset: { inputs: [null], infos: [3.0] },
    optimizer_kwargs: { objective: "Change a and b so that their sum equals the target value.", memory_size: 5 },
    metadata: { benchmark: "internal", entry: "MultiParamAgentModel" },
  };
}
