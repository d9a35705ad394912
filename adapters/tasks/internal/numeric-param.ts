import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { negativeAbsoluteError } from "../guides.js";

/** A single float parameter that should reach 3.0. Initial score −3.0. */
export function numericParamTask(): TaskBundle {
  return {
    taskId: "internal:numeric_param",
    parameters: [{ name: "value", kind: "number", value: 0.0, description: "A number to tune.", trainable: true }],
    agent: { name: "NumericParamAgent", program: { code: "output = value" }, run: (_input, values) => values.value },
    guide: negativeAbsoluteError,
    train_dataset: { inputs: [null], infos: [3.0] },
    optimizer_kwargs: { objective: "Change the number so that it equals the target value given in the feedback.", memory_size: 5 },
    metadata: { benchmark: "internal", entry: "NumericParamAgent" },
  };
}
