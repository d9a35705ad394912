/** Flags several verbs share. */
import type { FlagSpec } from "./args.js";

export const ROOT_FLAG: FlagSpec = {
  type: "string",
  value: "DIR",
  description: "LLM4AD tasks root: a folder of task modules with an index.json, e.g. a Trace-Bench checkout's benchmarks/LLM4AD/benchmark_tasks (default: the tasks bundled with trace-bench).",
};

export const BENCH_FLAG: FlagSpec = {
  type: "string",
  value: "SUITES",
  aliases: ["dataset-name"],
  description: "Suites to include, joined by ',' or '+': llm4ad, trace_examples, internal, veribench, hf, terminal_bench (default: all but terminal_bench).",
};

export const CONFIG_FLAG: FlagSpec = { type: "string", value: "FILE", required: true, description: "YAML or JSON run config." };

export const RUNS_DIR_FLAG: FlagSpec = { type: "string", value: "DIR", aliases: ["output-dir"], description: "Runs root (default: the config's runs_dir)." };

export const JSON_FLAG: FlagSpec = { type: "boolean", description: "Print one JSON document on stdout instead of text." };
