import type { ParsedArgs, VerbSpec } from "./args.js";
import { loadTaskRegistry } from "../../adapters/tasks/index.js";
import { suiteOfTaskId } from "../config/matrix.js";
import { parseBenchSelector } from "../tasks/bench-selector.js";
import { ROOT_FLAG, BENCH_FLAG, JSON_FLAG } from "./common-flags.js";

export const spec: VerbSpec = {
  name: "list-tasks",
  summary: "Print one task id per line, in discovery order (llm4ad, trace_examples, internal, veribench, hf, terminal_bench).",
  flags: {
    root: ROOT_FLAG,
    bench: BENCH_FLAG,
    json: { ...JSON_FLAG, description: 'Print one JSON document: {"tasks": [{"id", "suite"}], "suites": [...], "empty_suites": [reasons]}.' },
  },
};

export async function execute(args: ParsedArgs): Promise<number> {
  const registry = await loadTaskRegistry(args.flags.root !== undefined ? { root: args.flags.root as string } : {});
  const selection = parseBenchSelector(args.flags.bench as string | undefined, registry.suiteNames());
  const ids = registry.list(selection);
  const reasons = registry.emptyReasons(selection);
  if (args.flags.json === true) {
    const document = { tasks: ids.map((id) => ({ id, suite: suiteOfTaskId(id) })), suites: selection, empty_suites: reasons };
    process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    return 0;
  }
  if (ids.length > 0) process.stdout.write(`${ids.join("\n")}\n`);
  // A suite that lists nothing says why on stderr (stdout stays a clean list of ids).
  for (const reason of reasons) process.stderr.write(`trace-bench: ${reason}\n`);
  return 0;
}
