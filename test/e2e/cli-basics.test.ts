import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { hfTaskIds } from "../../adapters/tasks/hf/hf-catalog.js";

const NO_VERIBENCH_DATA = { TRACE_BENCH_VERIBENCH_DATA: "", HF_HUB_CACHE: "/nonexistent-hub-cache" };

describe("trace-bench CLI basics", () => {
  it("prints the command list with --help and exits 0", async () => {
    const r = await runCli(["--help"]);
    expect(r.code).toBe(0);
    for (const verb of ["list-tasks", "list-trainers", "run", "replay", "tokens", "calls", "compare", "candidates", "machines", "validate", "runs", "schema", "ui"]) expect(r.stdout).toContain(verb);
  });

  it("exits 2 with usage on stderr when no command is given", async () => {
    const r = await runCli([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Usage: trace-bench <command>");
  });

  it("rejects an unknown command with exit 2", async () => {
    const r = await runCli(["frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("trace-bench: unknown command 'frobnicate'; commands: list-tasks, list-trainers, run, replay, repair, tokens, calls, compare, candidates, machines, validate, runs, schema, ui, worker\n");
  });

  it.each(["list-tasks", "list-trainers", "run", "replay", "tokens", "calls", "compare", "candidates", "machines", "validate", "runs", "schema", "ui"])("%s --help shows its usage", async (verb) => {
    const r = await runCli([verb, "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: trace-bench ${verb}`));
    expect(r.stdout).toContain("--help");
  });

  it("rejects an unknown flag with a usage error, exit 2", async () => {
    const r = await runCli(["list-tasks", "--frob"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Unknown option '--frob'");
    expect(r.stderr).toContain("trace-bench list-tasks --help");
  });

  it("rejects a string flag without its value", async () => {
    const r = await runCli(["validate", "--config"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--config/);
  });
});

describe("list-tasks", () => {
  it("lists the shipped tasks one per line in discovery order", async () => {
    // No VeriBench data (test/e2e/veribench.test.ts lists it from data): the suite lists its placeholder.
    const r = await runCli(["list-tasks"], { env: NO_VERIBENCH_DATA });
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n").filter(Boolean)).toEqual([
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
      "veribench:smoke_placeholder",
      ...hfTaskIds(),
    ]);
  });

  it("filters by --bench and its alias --dataset-name", async () => {
    expect((await runCli(["list-tasks", "--bench", "trace_examples"])).stdout).toBe(
      "trace_examples:greeting_stub\ntrace_examples:train_single_node_stub\ntrace_examples:opentrace_greeting\ntrace_examples:opentrace_train_single_node\n",
    );
    expect((await runCli(["list-tasks", "--dataset-name", "internal+hf"])).stdout.split("\n").filter(Boolean)).toHaveLength(7 + 51);
  });

  it("says on stderr that a selected suite has no tasks, and lists it in --json's empty_suites", async () => {
    const missing = "/nonexistent-llm4ad-root";
    const reason = `no LLM4AD tasks root at ${missing}; pass one with --root DIR (a folder of task modules, e.g. a Trace-Bench checkout's benchmarks/LLM4AD/benchmark_tasks)`;
    const r = await runCli(["list-tasks", "--bench", "llm4ad", "--root", missing]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`trace-bench: llm4ad: ${reason}\n`);
    const doc = JSON.parse((await runCli(["list-tasks", "--bench", "llm4ad+internal", "--root", missing, "--json"])).stdout) as { tasks: { id: string }[]; suites: string[]; empty_suites: string[] };
    expect(doc.tasks.map((t) => t.id)).toContain("internal:numeric_param");
    expect(doc.empty_suites).toEqual([`llm4ad: ${reason}`]);
  });

  it("names an unknown bench selector and exits 2", async () => {
    const r = await runCli(["list-tasks", "--bench", "nosuch"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "trace-bench: --bench: unknown bench selector(s): nosuch; allowed: llm4ad, trace_examples, internal, veribench, hf, terminal_bench, kernelbench\n",
    );
  });
});

describe("list-trainers", () => {
  it("with --all prints every trainer as id, availability and reason, tab-separated and sorted", async () => {
    const r = await runCli(["list-trainers", "--all"]);
    expect(r.code).toBe(0);
    const rows = r.stdout.split("\n").filter(Boolean).map((line) => line.split("\t"));
    const ids = rows.map((row) => row[0]!);
    expect(ids).toEqual([...ids].sort());
    for (const id of ["PrioritySearch", "GEPA-Base", "GEPA-UCB", "GEPA-Beam", "BeamsearchAlgorithm", "BeamsearchHistoryAlgorithm", "UCBSearchAlgorithm", "MinibatchAlgorithm", "BasicSearchAlgorithm", "SequentialUpdate", "SequentialSearch", "BeamSearch", "StreamingPrioritySearch", "ParetobasedPS", "NoOpTrainer"]) {
      expect(ids).toContain(id);
    }
    for (const row of rows) {
      expect(["available", "unavailable"]).toContain(row[1]);
      if (row[1] === "unavailable") expect(row[2]).toMatch(/\S/);
    }
  });

  it("without --all lists only trainers that can run, and says how many are hidden", async () => {
    const all = (await runCli(["list-trainers", "--all"])).stdout.split("\n").filter(Boolean);
    const r = await runCli(["list-trainers"]);
    const available = all.filter((line) => line.split("\t")[1] === "available");
    expect(r.stdout.split("\n").filter(Boolean)).toEqual(available);
    expect(r.stderr).toContain(`${all.length - available.length} unavailable trainers not shown`);
  });
});

describe("schema", () => {
  it("prints a JSON Schema that documents the config keys", async () => {
    const r = await runCli(["schema"]);
    expect(r.code).toBe(0);
    const schema = JSON.parse(r.stdout) as { properties: Record<string, { description?: string }> };
    for (const key of ["run_id", "runs_dir", "mode", "seeds", "max_workers", "resume", "job_timeout", "tasks", "trainers", "llm", "ps_steps", "ps-steps"]) {
      expect(schema.properties).toHaveProperty(key);
    }
    expect(schema.properties.resume!.description).toContain("auto");
  });
});
