/**
 * Which LLM4AD tasks a root holds (suites.md §1.2, §1.12): the entries of its `index.json`, or,
 * without one, every sub-folder with an `__init__.py` (keyed by folder name). A key the index does
 * not know is tried as a folder name, as the reference's loader does.
 *
 * A task is a folder under the root whose `__init__.py` gets imported: a key or module that is
 * absolute, has a `..` segment, or resolves (links followed) outside the root is never a task, so
 * neither a config nor an index can make trace-bench import code from elsewhere.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { leavesByName, OutsideRootError, resolveInside } from "../../../src/fs/safe-path.js";
import { TaskOutsideRootError } from "../../../src/tasks/task-errors.js";

export interface Llm4adEntry {
  readonly key: string;
  /** The task's folder under the root. */
  readonly module: string;
}

/** An index.json entry that is not a task: it leads outside the root (never listed; its key is refused). */
export interface Llm4adOutsideEntry extends Llm4adEntry {
  readonly why: string;
}

export interface Llm4adDiscovery {
  readonly root: string;
  readonly entries: readonly Llm4adEntry[];
  readonly outside: readonly Llm4adOutsideEntry[];
  /** Why the root lists nothing (missing folder, unreadable index), or null. */
  readonly problem: string | null;
}

const hasModule = (root: string, folder: string) => existsSync(join(root, folder, "__init__.py"));

/** How `name` leaves any folder by its spelling, in words (`is an absolute path`), or null. */
function escapeByName(name: string): string | null {
  const leaves = leavesByName(name);
  return leaves === null ? null : leaves === "not relative" ? "is an absolute path" : "has a '..' segment";
}

/** Why the folder `name` (or its `__init__.py`) lies outside `root`, or null when it does not (or is absent). */
function outsideRoot(root: string, name: string): string | null {
  const byName = escapeByName(name);
  if (byName !== null) return `'${name}' ${byName}`;
  if (!existsSync(root)) return null;
  try {
    resolveInside(root, name);
    resolveInside(root, join(name, "__init__.py"));
    return null;
  } catch (error) {
    if (!(error instanceof OutsideRootError)) throw error;
    let real = "a missing target";
    try {
      real = realpathSync(join(root, name, "__init__.py"));
    } catch {
      // A dangling link still leads out.
    }
    return `'${name}' resolves to ${real}`;
  }
}

const outsideError = (root: string, key: string, why: string) =>
  new TaskOutsideRootError({ taskId: `llm4ad:${key}`, reason: `task 'llm4ad:${key}' is outside the LLM4AD tasks root ${root} (${why}); task ids name folders under the root` });

export function discoverLlm4adTasks(root: string): Llm4adDiscovery {
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    return { root, entries: [], outside: [], problem: `no LLM4AD tasks root at ${root}; pass one with --root DIR (a folder of task modules, e.g. a Trace-Bench checkout's benchmarks/LLM4AD/benchmark_tasks)` };
  }
  const indexPath = join(root, "index.json");
  if (existsSync(indexPath)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(indexPath, "utf8"));
    } catch (error) {
      return { root, entries: [], outside: [], problem: `${indexPath} is not valid JSON (${error instanceof Error ? error.message : String(error)}); fix it or remove it to list the task folders` };
    }
    if (!Array.isArray(parsed)) return { root, entries: [], outside: [], problem: `${indexPath} must be a JSON array of {key, module, ...} entries` };
    const entries: Llm4adEntry[] = [];
    const outside: Llm4adOutsideEntry[] = [];
    for (const item of parsed) {
      const entry = item as { key?: unknown; module?: unknown; wrapper?: unknown };
      const module = typeof entry.module === "string" ? entry.module : typeof entry.wrapper === "string" ? entry.wrapper : undefined;
      if (typeof entry.key !== "string" || module === undefined) continue;
      const moduleOutside = outsideRoot(root, module);
      const keyOutside = escapeByName(entry.key);
      const why = keyOutside !== null ? `the id ${keyOutside}` : moduleOutside === null ? null : `index.json's module ${moduleOutside}`;
      if (why === null) entries.push({ key: entry.key, module });
      else outside.push({ key: entry.key, module, why });
    }
    const leftOut = outside.length === 0 ? "" : ` inside the root (${outside.length} lead outside it)`;
    return { root, entries, outside, problem: entries.length === 0 ? `${indexPath} lists no task with a key and a module${leftOut}` : null };
  }
  const entries = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && hasModule(root, d.name) && outsideRoot(root, d.name) === null)
    .map((d) => ({ key: d.name, module: d.name }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { root, entries, outside: [], problem: entries.length === 0 ? `${root} has no index.json and no sub-folder with an __init__.py task module` : null };
}

/**
 * The folder of `key`: its index entry, else the key itself used as a folder name; null when
 * there is none. Throws `TaskOutsideRootError` for a key that leads outside the root.
 */
export function moduleOf(discovery: Llm4adDiscovery, key: string): string | null {
  const { root } = discovery;
  const refused = discovery.outside.find((e) => e.key === key);
  if (refused !== undefined) throw outsideError(root, key, refused.why);
  const byName = escapeByName(key);
  if (byName !== null) throw outsideError(root, key, `the id ${byName}`);
  const module = discovery.entries.find((e) => e.key === key)?.module ?? (hasModule(root, key) ? key : null);
  if (module === null) return null;
  // Checked again at each use: the folder may have become a link since discovery.
  const why = outsideRoot(root, module);
  if (why !== null) throw outsideError(root, key, why);
  return module;
}
