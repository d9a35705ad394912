import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { exactMatch } from "../guides.js";

/** Nothing to optimize: a job on it must fail with `no_trainable_parameters`. */
export function nonTrainableTask(): TaskBundle {
  return {
    taskId: "internal:non_trainable",
    parameters: [{ name: "fixed", kind: "text", value: "fixed", description: "A constant.", trainable: false }],
    agent: { name: "NonTrainableAgent", program: { code: "output = fixed" }, run: (_input, values) => values.fixed },
    guide: exactMatch,
    train_dataset: { inputs: [null], infos: ["fixed"] },
    optimizer_kwargs: { objective: "Nothing can change; the value is fixed.", memory_size: 1 },
    metadata: { benchmark: "internal", entry: "NonTrainableAgent" },
  };
}
