/** Optimizers by the names configs use (`optimizer:`), built with their kwargs and an LLM. */
import type { Kwargs } from "../../config/kwargs.js";
import type { Llm } from "../../llm/llm.js";
import type { Optimizer } from "../optimizer.js";
import { DIALECTS, PromptOptimizer, promptOptimizerOptions } from "./prompt-optimizer.js";
import { TextGradOptimizer, textGradOptions } from "./textgrad.js";

/** Names OpenTrace has that this build cannot run yet, with the reason. */
export const UNAVAILABLE_OPTIMIZERS: Readonly<Record<string, string>> = {
  OptoPrimeMulti: "not implemented yet",
};

export const OPTIMIZER_NAMES: readonly string[] = [...Object.keys(DIALECTS), "TextGrad", ...Object.keys(UNAVAILABLE_OPTIMIZERS)];

export class UnknownOptimizerError extends Error {
  override readonly name = "UnknownOptimizerError";
}

export function createOptimizer(name: string, kwargs: Kwargs | readonly Kwargs[], llm: Llm): Optimizer {
  // A list means one optimizer per parameter group; every task here has one group.
  const own = Array.isArray(kwargs) ? (kwargs[0] ?? {}) : (kwargs as Kwargs);
  if (name === "TextGrad") return new TextGradOptimizer(llm, textGradOptions(own));
  const dialect = DIALECTS[name];
  if (dialect === undefined) {
    const why = UNAVAILABLE_OPTIMIZERS[name];
    throw new UnknownOptimizerError(why ? `optimizer '${name}' is not available: ${why}` : `unknown optimizer '${name}'; known: ${OPTIMIZER_NAMES.join(", ")}`);
  }
  return new PromptOptimizer(dialect, llm, promptOptimizerOptions(own));
}
