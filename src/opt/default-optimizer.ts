import type { TaskBundle } from "../domain/task-bundle.js";
import { isTracedAgent } from "./trace/model.js";

/**
 * The optimizer used when a trainer names none, as the reference harness picks it (parity
 * scenario default-optimizer): OptoPrimeV2 for an agent written as a model (a Trace model, or any
 * agent with several parameters), OPROv2 only for a task that is a bare parameter (an untraced
 * agent with one parameter, e.g. an LLM4AD heuristic).
 */
export function defaultOptimizerFor(bundle: Pick<TaskBundle, "parameters" | "agent">): string {
  return !isTracedAgent(bundle.agent) && bundle.parameters.length === 1 ? "OPROv2" : "OptoPrimeV2";
}
