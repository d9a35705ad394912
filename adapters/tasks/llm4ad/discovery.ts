/**
 * Which LLM4AD tasks a root holds (suites.md §1.2, §1.12): the entries of its `index.json`, or,
 * without one, every sub-folder with an `__init__.py` (keyed by folder name). A key the index does
 * not know is tried as a folder name, as the reference's loader does.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export interface Llm4adEntry {
  readonly key: string;
  /** The task's folder under the root. */
  readonly module: string;
}

export interface Llm4adDiscovery {
  readonly root: string;
  readonly entries: readonly Llm4adEntry[];
  /** Why the root lists nothing (missing folder, unreadable index), or null. */
  readonly problem: string | null;
}

const hasModule = (root: string, folder: string) => existsSync(join(root, folder, "__init__.py"));

export function discoverLlm4adTasks(root: string): Llm4adDiscovery {
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    return { root, entries: [], problem: `no LLM4AD tasks root at ${root}; pass one with --root DIR (a folder of task modules, e.g. a Trace-Bench checkout's benchmarks/LLM4AD/benchmark_tasks)` };
  }
  const indexPath = join(root, "index.json");
  if (existsSync(indexPath)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(indexPath, "utf8"));
    } catch (error) {
      return { root, entries: [], problem: `${indexPath} is not valid JSON (${error instanceof Error ? error.message : String(error)}); fix it or remove it to list the task folders` };
    }
    if (!Array.isArray(parsed)) return { root, entries: [], problem: `${indexPath} must be a JSON array of {key, module, ...} entries` };
    const entries = parsed.flatMap((item): Llm4adEntry[] => {
      const entry = item as { key?: unknown; module?: unknown; wrapper?: unknown };
      const module = typeof entry.module === "string" ? entry.module : typeof entry.wrapper === "string" ? entry.wrapper : undefined;
      return typeof entry.key === "string" && module !== undefined ? [{ key: entry.key, module }] : [];
    });
    return { root, entries, problem: entries.length === 0 ? `${indexPath} lists no task with a key and a module` : null };
  }
  const entries = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && hasModule(root, d.name))
    .map((d) => ({ key: d.name, module: d.name }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { root, entries, problem: entries.length === 0 ? `${root} has no index.json and no sub-folder with an __init__.py task module` : null };
}

/** The folder of `key`: its index entry, else the key itself used as a folder name. */
export function moduleOf(discovery: Llm4adDiscovery, key: string): string | null {
  const entry = discovery.entries.find((e) => e.key === key);
  if (entry !== undefined) return entry.module;
  return hasModule(discovery.root, key) ? key : null;
}
