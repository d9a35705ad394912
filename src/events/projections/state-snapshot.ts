/** The state snapshot shape of spec §4.7: one parameter node, or an agent with its parameters. */
import type { JobFinishedData } from "../run-state.js";

export function stateSnapshot(finished: Pick<JobFinishedData, "agent" | "parameters">, values: Readonly<Record<string, unknown>>): unknown {
  const entry = (p: JobFinishedData["parameters"][number], index: number | null) => ({
    index,
    name: p.name,
    trainable: p.trainable,
    value: values[p.name] ?? null,
  });
  if (finished.parameters.length === 1) return { kind: "ParameterNode", parameter: entry(finished.parameters[0]!, null) };
  return { kind: finished.agent ?? "Agent", parameters: finished.parameters.map((p, i) => entry(p, i)) };
}
