/**
 * The import direction of the design, checked on the sources: `cli → engine → (opt, events,
 * config) → machines`, adapters wired in at the edge, the runtime wing (threads, V8 flags, signals,
 * pacing) free of the domain, and no cycle between folders. A folder is `src/<name>`, `adapters` or
 * `machines`; imports inside one folder are free.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.[cm]?ts$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

function folderOf(path: string): string {
  const [top, second] = path.split("/");
  return top === "src" ? `src/${second}` : top!;
}

/** Folder → folders it imports → one importing file each, for the messages. */
function folderImports(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of ["src", "adapters", "machines"].flatMap(sourceFiles)) {
    const from = folderOf(file);
    const imports = ts.preProcessFile(readFileSync(join(ROOT, file), "utf8"), true, true).importedFiles;
    for (const { fileName } of imports.filter((i) => i.fileName.startsWith("."))) {
      const to = folderOf(relative(ROOT, resolve(ROOT, dirname(file), fileName)).replaceAll("\\", "/"));
      if (to === from) continue;
      const targets = graph.get(from) ?? new Map<string, string>();
      if (!targets.has(to)) targets.set(to, file);
      graph.set(from, targets);
    }
  }
  return graph;
}

/** Every cycle found by a depth-first search, as `a → b → a`. */
function cycles(graph: ReadonlyMap<string, ReadonlyMap<string, string>>): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const visit = (folder: string, path: readonly string[]) => {
    const at = path.indexOf(folder);
    if (at >= 0) return void found.push([...path.slice(at), folder].join(" → "));
    if (done.has(folder)) return;
    for (const next of graph.get(folder)?.keys() ?? []) visit(next, [...path, folder]);
    done.add(folder);
  };
  for (const folder of graph.keys()) visit(folder, []);
  return found;
}

interface Rule {
  readonly rule: string;
  readonly forbids: (from: string, to: string) => boolean;
}

const RULES: readonly Rule[] = [
  { rule: "nothing imports cli/ or ui/ (but the ui verb, cli/ui.ts, serves the dashboard)", forbids: (from, to) => to === "src/cli" || (to === "src/ui" && from !== "src/cli") },
  { rule: "only cli/ and ui/ import engine/ (cli → engine → the rest)", forbids: (from, to) => to === "src/engine" && from !== "src/cli" && from !== "src/ui" },
  { rule: "adapters/ are wired in at the edge: only cli/ imports them", forbids: (from, to) => to === "adapters" && from !== "src/cli" },
  { rule: "machines/ are pure: they import nothing of src/ or adapters/", forbids: (from) => from === "machines" },
  { rule: "opt/ never imports tasks/: both speak domain/", forbids: (from, to) => from === "src/opt" && to === "src/tasks" },
  {
    rule: "llm/ imports domain/, events/ and fs/ at most: the LLM port records calls as events and knows no optimizer",
    forbids: (from, to) => from === "src/llm" && to !== "src/domain" && to !== "src/events" && to !== "src/fs",
  },
  { rule: "codec/ imports nothing: Python's formats are the bottom layer", forbids: (from) => from === "src/codec" },
  {
    rule: "runtime/ imports nothing of src/, adapters/ or machines/: speed and memory machinery behind ports, which the domain plugs into",
    forbids: (from) => from === "src/runtime",
  },
];

describe("folder dependencies", () => {
  const graph = folderImports();

  it("the scan sees the imports it checks", () => {
    expect(graph.get("src/engine")?.has("machines")).toBe(true);
    expect(graph.get("src/cli")?.has("adapters")).toBe(true);
    expect(graph.get("src/opt")?.has("src/domain")).toBe(true);
    expect(graph.get("src/events")?.has("src/runtime")).toBe(true);
  });

  it.each(RULES)("$rule", ({ forbids }) => {
    const violations = [...graph].flatMap(([from, targets]) => [...targets].filter(([to]) => forbids(from, to)).map(([to, file]) => `${file} imports ${to}/`));
    expect(violations).toEqual([]);
  });

  it("no cycle between folders", () => {
    expect(cycles(graph)).toEqual([]);
  });
});
