import type { ParsedArgs, VerbSpec } from "./args.js";
import { loadTaskRegistry } from "../../adapters/tasks/index.js";
import { parseBenchSelector } from "../tasks/bench-selector.js";
import { ROOT_FLAG, BENCH_FLAG } from "./common-flags.js";

export const spec: VerbSpec = {
  name: "list-tasks",
  summary: "Print one task id per line, in discovery order (llm4ad, trace_examples, internal, veribench, hf, terminal_bench).",
  flags: { root: ROOT_FLAG, bench: BENCH_FLAG },
};

export async function execute(args: ParsedArgs): Promise<number> {
  const registry = await loadTaskRegistry(args.flags.root !== undefined ? { root: args.flags.root as string } : {});
  const selection = parseBenchSelector(args.flags.bench as string | undefined, registry.suiteNames());
  const ids = registry.list(selection);
  if (ids.length > 0) process.stdout.write(`${ids.join("\n")}\n`);
  // A suite that lists nothing says why on stderr (stdout stays a clean list of ids).
  for (const reason of registry.emptyReasons(selection)) process.stderr.write(`trace-bench: ${reason}\n`);
  return 0;
}
