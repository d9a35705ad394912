/** The task suites this build ships, wired into one registry. */
import { TaskRegistry } from "../../src/tasks/task-registry.js";
import { codeParamTask } from "./internal/code-param.js";
import { multiParamTask } from "./internal/multi-param.js";
import { nonTrainableTask } from "./internal/non-trainable.js";
import { numericParamTask } from "./internal/numeric-param.js";
import { pendingSuite, staticSuite } from "./static-suite.js";
import { greetingStubTask } from "./trace_examples/greeting-stub.js";
import { trainSingleNodeStubTask } from "./trace_examples/train-single-node-stub.js";

export interface TaskRegistryOptions {
  /** LLM4AD tasks root (`--root`), used once the llm4ad suite lands. */
  readonly root?: string;
}

export function builtinTaskRegistry(_options: TaskRegistryOptions = {}): TaskRegistry {
  return new TaskRegistry([
    pendingSuite("llm4ad"),
    staticSuite("trace_examples", {
      greeting_stub: greetingStubTask,
      train_single_node_stub: trainSingleNodeStubTask,
    }),
    staticSuite("internal", {
      code_param: codeParamTask,
      numeric_param: numericParamTask,
      multi_param: multiParamTask,
      non_trainable: nonTrainableTask,
    }),
    pendingSuite("veribench"),
    pendingSuite("hf"),
    pendingSuite("terminal_bench"),
  ]);
}
