import { describe, expect, it } from "vitest";
import { builtinTaskRegistry } from "../../../adapters/tasks/index.js";
import { hfTaskIds } from "../../../adapters/tasks/hf/hf-catalog.js";
import { configSuiteSelection, parseBenchSelector } from "../../../src/tasks/bench-selector.js";
import { BenchSelectorError } from "../../../src/tasks/task-errors.js";
import { normalizeTaskId } from "../../../src/tasks/task-id.js";

describe("normalizeTaskId (spec §6.1)", () => {
  it.each([
    ["example:greeting_stub", "trace_examples:greeting_stub"],
    ["circle_packing", "llm4ad:circle_packing"],
    ["optimization/tsp_construct", "llm4ad:optimization/tsp_construct"],
    ["internal:numeric_param", "internal:numeric_param"],
    ["  internal:code_param ", "internal:code_param"],
    ["hf:bbeh/boolean_expressions", "hf:bbeh/boolean_expressions"],
  ])("%s → %s", (raw, normalized) => {
    expect(normalizeTaskId(raw)).toBe(normalized);
  });
});

describe("parseBenchSelector (spec §1.2)", () => {
  it("defaults to every suite except the opt-in terminal_bench and kernelbench", () => {
    expect(parseBenchSelector(undefined)).toEqual(["llm4ad", "trace_examples", "internal", "veribench", "hf"]);
    expect(parseBenchSelector("  ")).toEqual(["llm4ad", "trace_examples", "internal", "veribench", "hf"]);
  });

  it("accepts ',' and '+' separators and keeps discovery order", () => {
    expect(parseBenchSelector("internal+trace_examples")).toEqual(["trace_examples", "internal"]);
    expect(parseBenchSelector("terminal_bench, hf")).toEqual(["hf", "terminal_bench"]);
    expect(parseBenchSelector("kernelbench+internal")).toEqual(["internal", "kernelbench"]);
  });

  it("names unknown selectors and the allowed ones", () => {
    expect(() => parseBenchSelector("internal,kernelbenchx")).toThrow(BenchSelectorError);
    expect(() => parseBenchSelector("kernelbenchx")).toThrow(/unknown bench selector\(s\): kernelbenchx; allowed: llm4ad, trace_examples, internal, veribench, hf, terminal_bench, kernelbench$/);
  });
});

describe("configSuiteSelection: the suites of a config's tasks that validate keeps", () => {
  it("keeps every task without a selector, the opt-in suites' too (the original's behaviour); else the named suites", () => {
    expect(configSuiteSelection(undefined)).toBeNull();
    expect(configSuiteSelection(" ")).toBeNull();
    expect(configSuiteSelection("terminal_bench+internal")).toEqual(["internal", "terminal_bench"]);
    expect(() => configSuiteSelection("nosuch")).toThrow(BenchSelectorError);
  });
});

describe("TaskRegistry", () => {
  const registry = builtinTaskRegistry();

  it("lists the shipped tasks in discovery order", () => {
    const veribench = registry.list(["veribench"]);
    expect(registry.list()).toEqual([
      "llm4ad:online_bin_packing_local",
      "llm4ad:optimization/tsp_construct",
      "llm4ad:optimization/knapsack_construct",
      "llm4ad:optimization/set_cover_construct",
      "llm4ad:circle_packing",
      "llm4ad:science_discovery/oscillator_fit",
      "trace_examples:greeting_stub",
      "trace_examples:train_single_node_stub",
      "trace_examples:opentrace_greeting",
      "trace_examples:opentrace_train_single_node",
      "internal:code_param",
      "internal:numeric_param",
      "internal:multi_param",
      "internal:non_trainable",
      "internal:multiobjective_convex",
      "internal:multiobjective_bbeh",
      "internal:multiobjective_gsm8k",
      // The VeriBench tasks of this machine's data, else its placeholder (test/int/veribench/).
      ...veribench,
      ...hfTaskIds(),
      "terminal_bench:regex-log",
      "terminal_bench:log-summary-date-ranges",
      "terminal_bench:multi-source-data-merger",
      "terminal_bench:financial-document-processor",
      "kernelbench:relu",
      "kernelbench:softmax",
      "kernelbench:square_matmul",
    ]);
    expect(veribench.length).toBeGreaterThan(0);
    for (const id of veribench) expect(id.startsWith("veribench:")).toBe(true);
    expect(registry.list(["internal"])).toHaveLength(7);
    expect(registry.list(["hf", "veribench"])).toHaveLength(51 + veribench.length);
    expect(registry.list(["kernelbench"])).toEqual(["kernelbench:relu", "kernelbench:softmax", "kernelbench:square_matmul"]);
  });

  it("loads through id normalisation", async () => {
    expect((await registry.load("example:greeting_stub", {})).taskId).toBe("trace_examples:greeting_stub");
  });

  it("explains unknown tasks and unknown suites", async () => {
    await expect(registry.load("internal:nope", {})).rejects.toThrow(/unknown task 'internal:nope'.*list-tasks --bench internal/);
    await expect(registry.load("nosuch:x", {})).rejects.toThrow(/unknown task suite 'nosuch'/);
    await expect(registry.load("veribench:x", {})).rejects.toThrow(/^veribench_unavailable: /);
    // Any safe Terminal-Bench slug is a task; one that could reach outside is not.
    expect(registry.unknownTask("terminal_bench:regex-log")).toBeNull();
    await expect(registry.load("terminal_bench:../etc", {})).rejects.toMatchObject({ _tag: "TaskOutsideRootError" });
    await expect(registry.load("terminal_bench:a/b", {})).rejects.toMatchObject({ _tag: "TaskNotFoundError" });
    // A bare id is an LLM4AD key (spec §0.1).
    await expect(registry.load("no_such_llm4ad_task", {})).rejects.toThrow(/unknown LLM4AD task 'no_such_llm4ad_task'/);
  });

  it("expands tasks: normalised, duplicates with equal eval_kwargs dropped, order kept", () => {
    const expanded = registry.expandTasks([
      { id: "example:greeting_stub", eval_kwargs: {} },
      { id: "internal:numeric_param", eval_kwargs: { a: 1 } },
      { id: "trace_examples:greeting_stub", eval_kwargs: {} },
      { id: "internal:numeric_param", eval_kwargs: { a: 2 } },
      { id: "internal:numeric_param", eval_kwargs: { a: 1 } },
    ]);
    expect(expanded.map((t) => [t.id, t.eval_kwargs])).toEqual([
      ["trace_examples:greeting_stub", {}],
      ["internal:numeric_param", { a: 1 }],
      ["internal:numeric_param", { a: 2 }],
    ]);
  });
});

describe("TaskRegistry: task ids outside their suite's root", () => {
  const registry = builtinTaskRegistry();

  it("refuses '..' and absolute task names in every suite, and never loads them", async () => {
    expect(registry.outsideRoot("internal:numeric_param")).toBeNull();
    expect(registry.outsideRoot("internal:../numeric_param")).toMatch(/^task 'internal:\.\.\/numeric_param' names a path outside the internal tasks /);
    expect(registry.outsideRoot("hf:/etc/passwd")).toMatch(/^task 'hf:\/etc\/passwd' names a path outside the hf tasks /);
    expect(registry.unknownTask("trace_examples:a/../../b")).toMatch(/names a path outside the trace_examples tasks/);
    await expect(registry.load("internal:../numeric_param", {})).rejects.toMatchObject({ _tag: "TaskOutsideRootError" });
  });

  it("says an LLM4AD id leaves the tasks root, naming the root, before it is looked up", async () => {
    expect(registry.outsideRoot("../../tmp/evil")).toMatch(/^task 'llm4ad:\.\.\/\.\.\/tmp\/evil' is outside the LLM4AD tasks root \/.*benchmarks\/llm4ad \(the id has a '\.\.' segment\); task ids name folders under the root$/);
    expect(registry.unknownTask("llm4ad:/tmp/evil")).toMatch(/is outside the LLM4AD tasks root .* \(the id is an absolute path\)/);
    await expect(registry.load("llm4ad:../x", {})).rejects.toMatchObject({ _tag: "TaskOutsideRootError" });
    registry.close();
  });
});
