import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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

describe("LLM4AD task ids stay inside the tasks root", () => {
  /** A root with one real task and ways to name a folder outside it; the outside module would write `marker`. */
  function rootWithEscapes(): { root: string; outside: string } {
    const base = tempDir();
    const root = join(base, "root");
    const outside = join(base, "outside", "evil");
    mkdirSync(join(root, "inside"), { recursive: true });
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(root, "inside", "__init__.py"), "");
    writeFileSync(join(outside, "__init__.py"), "");
    symlinkSync(outside, join(root, "link_out"));
    // A folder inside whose __init__.py is a link to the outside one.
    mkdirSync(join(root, "init_link"));
    symlinkSync(join(outside, "__init__.py"), join(root, "init_link", "__init__.py"));
    return { root, outside };
  }

  it("a key with '..', an absolute key, a link out (folder or __init__.py) is refused with the root named; never listed", () => {
    const { root, outside } = rootWithEscapes();
    const found = discoverLlm4adTasks(root);
    expect(found.entries.map((e) => e.key)).toEqual(["inside"]);
    expect(moduleOf(found, "inside")).toBe("inside");
    const refusal = (key: string) => {
      try {
        moduleOf(found, key);
      } catch (error) {
        expect((error as { _tag?: string })._tag).toBe("TaskOutsideRootError");
        return (error as Error).message;
      }
      return "not refused";
    };
    const tail = "; task ids name folders under the root";
    expect(refusal("../outside/evil")).toBe(`task 'llm4ad:../outside/evil' is outside the LLM4AD tasks root ${root} (the id has a '..' segment)${tail}`);
    expect(refusal("inside/../../outside/evil")).toMatch(/has a '\.\.' segment/);
    expect(refusal(outside)).toBe(`task 'llm4ad:${outside}' is outside the LLM4AD tasks root ${root} (the id is an absolute path)${tail}`);
    expect(refusal("link_out")).toBe(`task 'llm4ad:link_out' is outside the LLM4AD tasks root ${root} ('link_out' resolves to ${join(outside, "__init__.py")})${tail}`);
    expect(refusal("init_link")).toMatch(/^task 'llm4ad:init_link' is outside .*'init_link' resolves to /);
    // Even an id that names nothing at all is refused by its spelling.
    expect(refusal("../nothing")).toMatch(/has a '\.\.' segment/);
  });

  it("index.json entries whose module or key leads outside are left out of the list, and their keys refused", () => {
    const { root } = rootWithEscapes();
    writeFileSync(
      join(root, "index.json"),
      JSON.stringify([
        { key: "ok", module: "inside" },
        { key: "evil_dots", module: "../outside/evil" },
        { key: "evil_abs", module: join(root, "..", "outside", "evil") },
        { key: "evil_link", module: "link_out" },
        { key: "../evil_key", module: "inside" },
      ]),
    );
    const found = discoverLlm4adTasks(root);
    expect(found.entries).toEqual([{ key: "ok", module: "inside" }]);
    expect(found.outside.map((e) => [e.key, e.why])).toEqual([
      ["evil_dots", "index.json's module '../outside/evil' has a '..' segment"],
      ["evil_abs", `index.json's module '${join(root, "..", "outside", "evil")}' is an absolute path`],
      ["evil_link", `index.json's module 'link_out' resolves to ${join(root, "..", "outside", "evil", "__init__.py")}`],
      ["../evil_key", "the id has a '..' segment"],
    ]);
    for (const key of ["evil_dots", "evil_abs", "evil_link", "../evil_key"]) expect(() => moduleOf(found, key), key).toThrow(/is outside the LLM4AD tasks root/);
  });

  it("a folder that becomes a link after discovery is refused when it is used", () => {
    const { root, outside } = rootWithEscapes();
    mkdirSync(join(root, "swapped"));
    writeFileSync(join(root, "swapped", "__init__.py"), "");
    const found = discoverLlm4adTasks(root);
    expect(moduleOf(found, "swapped")).toBe("swapped");
    rmSync(join(root, "swapped"), { recursive: true });
    symlinkSync(outside, join(root, "swapped"));
    expect(() => moduleOf(found, "swapped")).toThrow(/'swapped' resolves to /);
  });
});
