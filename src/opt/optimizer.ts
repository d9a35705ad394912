/**
 * The optimizer port: given a problem (parameters, code, inputs, outputs, feedback), ask the LLM
 * for new parameter values. Proposals are never applied by the optimizer: trainers decide.
 */
import type { ParameterValues } from "../domain/parameter.js";
import type { ProblemInstance } from "./problem.js";

export interface Proposal {
  /** Coerced new values of the trainable parameters the reply changed (empty: no change). */
  readonly update: ParameterValues;
  readonly reply: string;
  readonly reasoning: string;
  /** The LLM answered TERMINATE (no change needed). */
  readonly terminated: boolean;
  /** What could not be read or coerced; the parameters concerned are left unchanged. */
  readonly notes: readonly string[];
}

export interface Optimizer {
  readonly name: string;
  propose(problem: ProblemInstance, signal: AbortSignal): Promise<Proposal>;
  /** An independent copy with the memory it has so far (PrioritySearch forks one per proposal). */
  fork(): Optimizer;
}
