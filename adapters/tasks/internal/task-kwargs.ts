/**
 * The eval_kwargs the multi-objective tasks share (`objective_mode`, `seed`, `n_train`...), each
 * checked with a one-line error that names the key and what it takes.
 */
import type { Kwargs } from "../../../src/config/kwargs.js";

export type ObjectiveMode = "weighted" | "pareto";

/** `eval_kwargs.objective_mode`: weighted (the original's default) or pareto. */
export function objectiveModeOf(evalKwargs: Kwargs): ObjectiveMode {
  const mode = evalKwargs["objective_mode"] ?? "weighted";
  if (mode !== "weighted" && mode !== "pareto") throw new Error(`eval_kwargs.objective_mode must be weighted or pareto, got ${JSON.stringify(mode)}`);
  return mode;
}

/** A non-negative whole-number eval kwarg, or its default. */
export function countOf(evalKwargs: Kwargs, key: string, fallback: number): number {
  const value = evalKwargs[key] ?? fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) throw new Error(`eval_kwargs.${key} must be a non-negative integer, got ${JSON.stringify(value)}`);
  return value;
}
