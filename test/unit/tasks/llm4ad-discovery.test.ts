import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { discoverLlm4adTasks, moduleOf } from "../../../adapters/tasks/llm4ad/discovery.js";
import { REPO_ROOT, tempDir } from "../../support/cli.js";

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "llm4ad");

describe("LLM4AD task discovery", () => {
  it("reads index.json: keys in its order, each with its module folder; an unknown key is tried as a folder name", () => {
    const found = discoverLlm4adTasks(join(FIXTURES, "indexed"));
    expect(found.entries).toEqual([
      { key: "toy/double", module: "toy_double" },
      { key: "toy/needs_missing", module: "needs_missing" },
    ]);
    expect(found.problem).toBeNull();
    expect(moduleOf(found, "toy/double")).toBe("toy_double");
    expect(moduleOf(found, "toy_double")).toBe("toy_double");
    expect(moduleOf(found, "nope")).toBeNull();
  });

  it("without index.json, every sub-folder with an __init__.py is a task keyed by its name", () => {
    const root = tempDir();
    for (const name of ["b_task", "a_task", "not_a_task"]) mkdirSync(join(root, name));
    writeFileSync(join(root, "a_task", "__init__.py"), "");
    writeFileSync(join(root, "b_task", "__init__.py"), "");
    expect(discoverLlm4adTasks(root).entries).toEqual([
      { key: "a_task", module: "a_task" },
      { key: "b_task", module: "b_task" },
    ]);
  });

  it("says why nothing is listed: no root, an unreadable index, an empty folder", () => {
    expect(discoverLlm4adTasks("/no/such/root").problem).toMatch(/^no LLM4AD tasks root at \/no\/such\/root; pass one with --root DIR/);
    const broken = tempDir();
    writeFileSync(join(broken, "index.json"), "{not json");
    expect(discoverLlm4adTasks(broken).problem).toMatch(/index\.json is not valid JSON/);
    expect(discoverLlm4adTasks(tempDir()).problem).toMatch(/has no index\.json and no sub-folder with an __init__\.py/);
  });

  it("the bundled root lists the six tasks of benchmarks/llm4ad", () => {
    expect(discoverLlm4adTasks(join(REPO_ROOT, "benchmarks", "llm4ad")).entries.map((e) => e.key)).toEqual([
      "online_bin_packing_local",
      "optimization/tsp_construct",
      "optimization/knapsack_construct",
      "optimization/set_cover_construct",
      "circle_packing",
      "science_discovery/oscillator_fit",
    ]);
  });
});
