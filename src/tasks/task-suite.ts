/**
 * The task port. A suite lists task ids and builds a fresh `TaskBundle` per job (the bundle's
 * vocabulary lives in domain/, shared with the optimizers and trainers).
 */
import type { Kwargs } from "../config/kwargs.js";
import type { TaskBundle } from "../domain/task-bundle.js";

export const SUITE_NAMES = ["llm4ad", "trace_examples", "internal", "veribench", "hf", "terminal_bench", "kernelbench"] as const;
export type SuiteName = (typeof SUITE_NAMES)[number];

export interface TaskSuite {
  /** A built-in `SuiteName`, or the name of a suite loaded from TRACE_BENCH_TASK_MODULES. */
  readonly name: string;
  /** Full task ids (`<suite>:<name>`) in discovery order. */
  list(): readonly string[];
  /**
   * Whether `load` would find this id (without loading it). Absent: the registry trusts the id
   * (a suite of your own may load ids it does not list).
   */
  knows?(taskId: string): boolean;
  /**
   * The ids a config's task id stands for (`hf:bbeh` → its subtasks), or null when it stands for
   * itself. Absent: no id of the suite expands.
   */
  expand?(taskId: string): readonly string[] | null;
  /** A fresh bundle. Throws `TaskUnavailableError` (job skipped) or `TaskNotFoundError`. */
  load(taskId: string, evalKwargs: Kwargs): TaskBundle | Promise<TaskBundle>;
  /** Why `list()` is empty (no tasks root, no python3...), for `list-tasks` to say. */
  emptyReason?(): string | null;
  /** Pool sizes and limits of suites that evaluate out of process, and the run's mode, from the run's config. */
  configure?(settings: { readonly workers?: number; readonly memoryMb?: number; readonly mode?: "stub" | "real" }): void;
  /** Stops what the suite started (worker processes): called when the run ends, however it ends. */
  close?(): void;
}
