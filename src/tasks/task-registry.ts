/**
 * All task suites behind one lookup: discovery in suite order, bundle loading by id, and the
 * expansion of a config's task list (spec §6.2–6.3).
 */
import { canonicalJson } from "../codec/python-json.js";
import { suiteOfTaskId } from "../config/matrix.js";
import type { TaskEntry } from "../config/run-config.js";
import { cloneValue, type Kwargs } from "../config/kwargs.js";
import { TaskNotFoundError, TaskOutsideRootError } from "./task-errors.js";
import { leavesByName } from "../fs/safe-path.js";
import { didYouMean } from "../config/suggest.js";
import { normalizeTaskId } from "./task-id.js";
import type { TaskBundle } from "../domain/task-bundle.js";
import { SUITE_NAMES, type TaskSuite } from "./task-suite.js";

export class TaskRegistry {
  private readonly suites: ReadonlyMap<string, TaskSuite>;

  constructor(suites: readonly TaskSuite[]) {
    this.suites = new Map(suites.map((s) => [s.name, s]));
  }

  /** Suite names in discovery order: the built-in order of spec §1.3, then added suites. */
  suiteNames(): string[] {
    return [...SUITE_NAMES.filter((n) => this.suites.has(n)), ...[...this.suites.keys()].filter((n) => !(SUITE_NAMES as readonly string[]).includes(n))];
  }

  /** Task ids of the selected suites, in discovery order. */
  list(selection: readonly string[] = this.suiteNames()): string[] {
    return this.suiteNames()
      .filter((name) => selection.includes(name))
      .flatMap((name) => this.suites.get(name)?.list() ?? []);
  }

  /** For each selected suite that lists nothing, a line naming it and why (its own reason when it has one). */
  emptyReasons(selection: readonly string[] = this.suiteNames()): string[] {
    return this.suiteNames()
      .filter((name) => selection.includes(name))
      .flatMap((name) => {
        const suite = this.suites.get(name)!;
        if (suite.list().length > 0) return [];
        // Every empty suite is named: an empty list must never pass for "no such tasks here".
        return [`${name}: ${suite.emptyReason?.() || "the suite lists no tasks"}`];
      });
  }

  configure(settings: { readonly workers?: number; readonly memoryMb?: number; readonly mode?: "stub" | "real" }): void {
    for (const suite of this.suites.values()) suite.configure?.(settings);
  }

  /** Stops every suite's workers. */
  close(): void {
    for (const suite of this.suites.values()) suite.close?.();
  }

  /**
   * Why this task id names something outside its suite's root (a `..` segment, an absolute path,
   * a link out: the suite says, with its root), or null. Such an id is never loaded.
   */
  outsideRoot(taskId: string): string | null {
    const id = normalizeTaskId(taskId);
    const suiteName = suiteOfTaskId(id);
    try {
      this.suites.get(suiteName)?.knows?.(id);
    } catch (error) {
      if (error instanceof TaskOutsideRootError) return error.reason;
      throw error;
    }
    // Every suite: a task name is never a path that leaves a folder.
    const name = id.slice(suiteName.length + 1);
    return leavesByName(name) === null ? null : `task '${id}' names a path outside the ${suiteName} tasks ('..' segments and absolute paths are not task names); run 'trace-bench list-tasks --bench ${suiteName}' for its tasks`;
  }

  /**
   * Why no suite would load this task id (unknown suite or unknown task, with the nearest known
   * id), or null when it is known (or its suite cannot tell without loading it).
   */
  unknownTask(taskId: string): string | null {
    const id = normalizeTaskId(taskId);
    const suiteName = suiteOfTaskId(id);
    const suite = this.suites.get(suiteName);
    const outside = this.outsideRoot(id);
    if (outside !== null) return outside;
    const near = didYouMean(id, this.list());
    if (suite === undefined) return `unknown task suite '${suiteName}' in task id '${id}'${near}; suites: ${this.suiteNames().join(", ")}`;
    if (suite.knows === undefined || suite.knows(id)) return null;
    if (suite.list().length === 0) {
      const why = suite.emptyReason?.();
      return why ? `unknown task '${id}': ${why}` : `task suite '${suiteName}' is not implemented yet, so '${id}' cannot be loaded`;
    }
    return `unknown task '${id}'${near}; run 'trace-bench list-tasks --bench ${suiteName}' for its tasks`;
  }

  async load(taskId: string, evalKwargs: Kwargs): Promise<TaskBundle> {
    const id = normalizeTaskId(taskId);
    const suiteName = suiteOfTaskId(id);
    const suite = this.suites.get(suiteName);
    if (suite === undefined) {
      throw new TaskNotFoundError({ taskId: id, reason: `unknown task suite '${suiteName}' in task id '${id}'; suites: ${this.suiteNames().join(", ")}` });
    }
    const outside = this.outsideRoot(id);
    if (outside !== null) throw new TaskOutsideRootError({ taskId: id, reason: outside });
    return suite.load(id, evalKwargs);
  }

  /**
   * Normalised ids, special ids expanded (once suites that have them exist), duplicates with the
   * same eval_kwargs dropped, order kept.
   */
  expandTasks(tasks: readonly TaskEntry[]): TaskEntry[] {
    const seen = new Set<string>();
    const out: TaskEntry[] = [];
    for (const task of tasks) {
      const id = normalizeTaskId(task.id);
      // Each expanded task gets its own copy of the eval_kwargs (spec §6.3).
      const ids = this.suites.get(suiteOfTaskId(id))?.expand?.(id) ?? [id];
      for (const one of ids) {
        const entry = { id: one, eval_kwargs: ids.length > 1 ? cloneValue(task.eval_kwargs) : task.eval_kwargs };
        const key = `${entry.id}\u0000${canonicalJson(entry.eval_kwargs)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(entry);
      }
    }
    return out;
  }
}
