/**
 * Task ids of the hf suite and what each names: an entry of the catalogue, and for entries with
 * subtasks, one subtask (its split). `hf:bbeh` itself is not a task: a config naming it gets
 * every subtask (see `expandHfTaskId`).
 */
import { HF_TASK_ENTRIES } from "./hf-task-entries.js";
import type { HfTaskEntry } from "./hf-task-entry.js";

export interface HfTaskRef {
  readonly entry: HfTaskEntry;
  readonly subtask: string | null;
}

const BY_ID: ReadonlyMap<string, HfTaskEntry> = new Map(HF_TASK_ENTRIES.map((e) => [e.id, e]));

/** Every runnable id, in catalogue order: `hf:<id>` or `hf:<id>/<subtask>` (51). */
export function hfTaskIds(): string[] {
  return HF_TASK_ENTRIES.flatMap((e) => (e.subtasks && e.subtasks.length > 0 ? e.subtasks.map((s) => `hf:${e.id}/${s}`) : [`hf:${e.id}`]));
}

/** The entry and subtask an id names, or null. */
export function resolveHfTaskId(taskId: string): HfTaskRef | null {
  if (!taskId.startsWith("hf:")) return null;
  const name = taskId.slice(3);
  const slash = name.indexOf("/");
  const entry = BY_ID.get(slash < 0 ? name : name.slice(0, slash));
  if (entry === undefined) return null;
  if (slash < 0) return entry.subtasks && entry.subtasks.length > 0 ? null : { entry, subtask: null };
  const subtask = name.slice(slash + 1);
  // As in the original, any split name may follow the slash (the listed subtasks are the curated ones).
  return subtask === "" ? null : { entry, subtask };
}

/** `hf:<id>` of an entry with subtasks → its subtask ids (in the catalogue's order); otherwise null. */
export function expandHfTaskId(taskId: string): string[] | null {
  if (!taskId.startsWith("hf:") || taskId.includes("/")) return null;
  const entry = BY_ID.get(taskId.slice(3));
  return entry?.subtasks && entry.subtasks.length > 0 ? entry.subtasks.map((s) => `hf:${entry.id}/${s}`) : null;
}
