/** `trace-bench machines [--json]`: the job state machine, as states and transitions or as JSON. */
import type { ParsedArgs, VerbSpec } from "./args.js";
import { jobMachineDefinition } from "../../machines/job-machine-definition.js";
import { jobMachine } from "../../machines/job.machine.js";

export const spec: VerbSpec = {
  name: "machines",
  summary: "Print the job state machine: its states and transitions, or with --json its XState definition (for Stately and other visualizers).",
  flags: { json: { type: "boolean", description: "Print the machine config as JSON: what XState's createMachine() takes (guards and actions by name)." } },
};

export async function execute(args: ParsedArgs): Promise<number> {
  if (args.flags.json === true) {
    process.stdout.write(`${JSON.stringify(jobMachineDefinition(), null, 2)}\n`);
    return 0;
  }
  const lines: string[] = [];
  for (const [name, node] of Object.entries(jobMachine.root.states)) {
    const tags = [...node.tags].join(",");
    lines.push(`${name}${node.type === "final" ? " (final)" : ""}${tags ? ` [${tags}]` : ""}`);
    for (const [event, transitions] of node.transitions) {
      for (const t of transitions) {
        // A targetless branch acts in place: the job machine's raise a verdict (TRAINING_ENDED), shown by name.
        const actions = t.actions.map((a) => (typeof a === "string" ? a : ((a as { type?: string }).type ?? "action")));
        const target = t.target?.map((s) => s.key).join(",") ?? (actions.length > 0 ? `(${actions.join(", ")})` : "(self)");
        lines.push(`  ${event} -> ${target}${t.guard ? ` if ${typeof t.guard === "string" ? t.guard : "guard"}` : ""}`);
      }
    }
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}
