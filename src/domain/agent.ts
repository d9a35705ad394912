/** The agent turns an input into a response using the current parameter values. */
import type { ParameterValues } from "./parameter.js";
import type { TaskCallContext } from "./task-call-context.js";

/** How an agent uses its parameters, shown to optimizers as #Code and #Documentation. */
export interface AgentProgram {
  readonly code: string;
  readonly documentation?: Readonly<Record<string, string>>;
}

export interface Agent {
  /** Recorded as the bundle's `entry` metadata. */
  readonly name: string;
  readonly program?: AgentProgram;
  /** The response for one input under the given parameter values; throws on an execution error. */
  run(input: unknown, values: ParameterValues, context: TaskCallContext): unknown;
}
