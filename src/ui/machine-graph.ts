/**
 * The job machine as nodes and edges for the page to lay out and draw, read from the definition
 * `trace-bench machines --json` prints (the config `createMachine` accepts and Stately's editor
 * imports), so the diagram shows exactly what that export says and can never drift from what decides.
 */
import { jobMachineDefinition, type TransitionDefinition } from "../../machines/job-machine-definition.js";
import type { MachineEdge, MachineNode, MachinePayload } from "./api-types.js";

/** A target as the definition writes it: a sibling's key, or `#id` of a state of this flat machine. */
const stateKey = (target: string, machineId: string) => (target.startsWith(`#${machineId}.`) ? target.slice(machineId.length + 2) : target);

export function machineGraph(): MachinePayload {
  const definition = jobMachineDefinition();
  const nodes: MachineNode[] = [];
  const edges: MachineEdge[] = [];
  for (const [name, state] of Object.entries(definition.states ?? {})) {
    nodes.push({ id: name, final: state.type === "final", tags: [...(state.tags ?? [])] });
    for (const [event, on] of Object.entries(state.on ?? {})) {
      const transitions: readonly TransitionDefinition[] = Array.isArray(on) ? on : [on];
      for (const t of transitions) {
        const targets = t.target === undefined ? [name] : typeof t.target === "string" ? [t.target] : t.target;
        for (const target of targets) edges.push({ from: name, to: stateKey(target, definition.id), event, guard: t.guard ?? null });
      }
    }
  }
  return { id: definition.id, initial: definition.initial ?? nodes[0]!.id, nodes, edges };
}
