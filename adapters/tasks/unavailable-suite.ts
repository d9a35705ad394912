/**
 * A suite whose adapter this build lacks (Terminal-Bench: Harbor is not built yet). Its task ids
 * are known, so a config naming one plans a job, and loading one throws `TaskUnavailableError`:
 * `validate` prints `[SKIP]` and `run` records a `skipped` job with the reason, as the original
 * does for a VeriBench it cannot find ("veribench_unavailable: …"), instead of a config error.
 */
import { TaskUnavailableError } from "../../src/tasks/task-errors.js";
import type { SuiteName, TaskSuite } from "../../src/tasks/task-suite.js";

/** `<suite>_unavailable: <why>`, the original's form of the reason. */
export const unavailableReason = (name: string, why: string) => `${name}_unavailable: ${why}`;

export function unavailableSuite(name: SuiteName, why: string): TaskSuite {
  const reason = unavailableReason(name, why);
  return {
    name,
    list: () => [],
    knows: (taskId) => taskId.startsWith(`${name}:`) && taskId.length > name.length + 1,
    emptyReason: () => reason,
    load(taskId) {
      throw new TaskUnavailableError({ taskId, reason });
    },
  };
}
