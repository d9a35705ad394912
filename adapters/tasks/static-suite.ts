/** A suite whose tasks are TypeScript builders known at compile time. */
import type { Kwargs } from "../../src/config/kwargs.js";
import { TaskNotFoundError } from "../../src/tasks/task-errors.js";
import type { TaskBundle } from "../../src/domain/task-bundle.js";
import type { SuiteName, TaskSuite } from "../../src/tasks/task-suite.js";

export type TaskBuilder = (evalKwargs: Kwargs) => TaskBundle;

/** `close`: stops what the suite's tasks share (the JavaScript sandbox's calls in flight). */
export function staticSuite(name: SuiteName, builders: Readonly<Record<string, TaskBuilder>>, close?: () => void): TaskSuite {
  const ids = Object.keys(builders).map((short) => `${name}:${short}`);
  return {
    name,
    list: () => ids,
    knows: (taskId) => taskId.startsWith(`${name}:`) && Object.hasOwn(builders, taskId.slice(name.length + 1)),
    ...(close ? { close } : {}),
    load(taskId, evalKwargs) {
      const builder = builders[taskId.slice(name.length + 1)];
      if (!taskId.startsWith(`${name}:`) || builder === undefined) {
        throw new TaskNotFoundError({ taskId, reason: `unknown task '${taskId}'; run 'trace-bench list-tasks --bench ${name}' for the ${name} tasks (${ids.join(", ")})` });
      }
      return builder(evalKwargs);
    },
  };
}
