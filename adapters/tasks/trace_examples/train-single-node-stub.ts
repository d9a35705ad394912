import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { negativeAbsoluteError } from "../guides.js";
import type { JsSandbox } from "../../sandbox/js-sandbox.js";

/** A float returned through a trainable function (run in the JavaScript sandbox); the target is 3.0. Initial score −3.0. */
export function trainSingleNodeStubTask(js: JsSandbox): TaskBundle {
  return {
    taskId: "trace_examples:train_single_node_stub",
    parameters: [
      { name: "value", kind: "number", value: 0.0, description: "The number the model outputs.", trainable: true },
      { name: "forward", kind: "code", value: "(value) => value", description: "A JavaScript arrow function (value) => number.", trainable: true },
    ],
    agent: {
      name: "SingleNodeAgent",
      program: { code: "output = forward(value)" },
      run: (_input, values, context) => js.run(String(values.forward), [values.value], context.signal ? { signal: context.signal } : {}),
    },
    guide: negativeAbsoluteError,
    train_dataset: { inputs: [null], infos: [3.0] },
    optimizer_kwargs: { objective: "Make the model output equal the target value.", memory_size: 5 },
    metadata: { benchmark: "trace_examples", entry: "SingleNodeAgent" },
  };
}
