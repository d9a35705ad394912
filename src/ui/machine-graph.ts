/**
 * The job machine as nodes and edges for the page to lay out and draw, read from the machine
 * definition itself (machines/job.machine.ts), so the diagram can never drift from what decides.
 */
import { jobMachine } from "../../machines/job.machine.js";
import type { MachineEdge, MachineNode, MachinePayload } from "./api-types.js";

export function machineGraph(): MachinePayload {
  const nodes: MachineNode[] = [];
  const edges: MachineEdge[] = [];
  for (const [name, node] of Object.entries(jobMachine.root.states)) {
    nodes.push({ id: name, final: node.type === "final", tags: [...node.tags] });
    for (const [event, transitions] of node.transitions) {
      for (const t of transitions) {
        const guard = t.guard === undefined ? null : typeof t.guard === "string" ? t.guard : ((t.guard as { type?: string }).type ?? "guard");
        for (const target of t.target ?? [node]) edges.push({ from: name, to: target.key, event, guard });
      }
    }
  }
  const initial = jobMachine.root.initial?.target[0]?.key ?? nodes[0]!.id;
  return { id: jobMachine.id, initial, nodes, edges };
}
