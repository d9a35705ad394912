import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { defineTraceModel } from "../../../src/opt/trace/model.js";
import { exactMatch } from "../guides.js";

const SOURCE = "def f(x): return x";

/** Sources the stub LLM may propose for `code` (it cannot write code of its own). */
export const codeParamStubAlternatives = { code: [SOURCE, "def f(x): return x + 0", "def f(x):\n    return x"] };

/** A model whose output is its code string, which must stay exactly as the reference. Initial score 1.0. */
export function codeParamTask(): TaskBundle {
  const model = defineTraceModel({
    name: "CodeParamAgentModel",
    parameters: [{ name: "code", kind: "code", value: SOURCE, description: "Python source of the function f." }],
    forward: async (self) => self.param("code"),
  });
  return {
    taskId: "internal:code_param",
    parameters: model.parameters,
    agent: model.agent,
    guide: exactMatch,
    train_dataset: { inputs: [null], infos: [SOURCE] },
    optimizer_kwargs: { objective: "Make the code exactly match the expected source.", memory_size: 5 },
    metadata: { benchmark: "internal", entry: "CodeParamAgentModel" },
  };
}
