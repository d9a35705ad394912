import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { exactMatch } from "../guides.js";

const SOURCE = "def f(x): return x";

/** Sources the stub LLM may propose for `code` (it cannot write code of its own). */
export const codeParamStubAlternatives = { code: [SOURCE, "def f(x): return x + 0", "def f(x):\n    return x"] };

/** A code string that must stay exactly as the reference. Initial score 1.0. */
export function codeParamTask(): TaskBundle {
  return {
    taskId: "internal:code_param",
    parameters: [{ name: "code", kind: "code", value: SOURCE, description: "Python source of the function f.", trainable: true }],
    agent: { name: "CodeParamAgent", program: { code: "output = code" }, run: (_input, values) => values.code },
    guide: exactMatch,
    train_dataset: { inputs: [null], infos: [SOURCE] },
    optimizer_kwargs: { objective: "Make the code exactly match the expected source.", memory_size: 5 },
    metadata: { benchmark: "internal", entry: "CodeParamAgent" },
  };
}
