import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { negativeAbsoluteError } from "../guides.js";

/** Two numbers whose sum should be 3.0; the output is a + b. Initial score −1.0. */
export function multiParamTask(): TaskBundle {
  return {
    taskId: "internal:multi_param",
    parameters: [
      { name: "a", kind: "number", value: 1.0, description: "First addend.", trainable: true },
      { name: "b", kind: "number", value: 1.0, description: "Second addend.", trainable: true },
    ],
    agent: { name: "MultiParamAgent", program: { code: "output = a + b" }, run: (_input, values) => Number(values.a) + Number(values.b) },
    guide: negativeAbsoluteError,
    train_dataset: { inputs: [null], infos: [3.0] },
    optimizer_kwargs: { objective: "Change a and b so that their sum equals the target value.", memory_size: 5 },
    metadata: { benchmark: "internal", entry: "MultiParamAgent" },
  };
}
