import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { defineTraceModel } from "../../../src/opt/trace/model.js";
import { exactMatch } from "../guides.js";

/** A model with nothing to optimize: a job on it must fail with `no_trainable_parameters`. */
export function nonTrainableTask(): TaskBundle {
  const model = defineTraceModel({
    name: "NonTrainableAgentModel",
    parameters: [{ name: "fixed", kind: "text", value: "fixed", description: "A constant.", trainable: false }],
    forward: async (self) => self.param("fixed"),
  });
  return {
    taskId: "internal:non_trainable",
    parameters: model.parameters,
    agent: model.agent,
    guide: exactMatch,
    train_dataset: { inputs: [null], infos: ["fixed"] },
    optimizer_kwargs: { objective: "Nothing can change; the value is fixed.", memory_size: 1 },
    metadata: { benchmark: "internal", entry: "NonTrainableAgentModel" },
  };
}
