/** Optimizers by the names configs use (`optimizer:`), built with their kwargs and an LLM. */
import type { Kwargs } from "../../config/kwargs.js";
import type { Llm } from "../../llm/llm.js";
import type { Optimizer } from "../optimizer.js";
import { OptoPrimeMulti } from "./optoprime-multi.js";
import { optoPrimeMultiKwargsProblems, optoPrimeMultiOptions } from "./optoprime-multi-options.js";
import { DIALECTS, PromptOptimizer, promptOptimizerOptions } from "./prompt-optimizer.js";
import { TextGradOptimizer, textGradOptions } from "./textgrad.js";

/** Names OpenTrace has that this build cannot run yet, with the reason. */
export const UNAVAILABLE_OPTIMIZERS: Readonly<Record<string, string>> = {};

/** Other names of an optimizer: the pinned OpenTrace exports OptoPrime also as OptoPrimeV1. */
export const OPTIMIZER_ALIASES: Readonly<Record<string, string>> = { OptoPrimeV1: "OptoPrime" };

export const OPTIMIZER_NAMES: readonly string[] = [...Object.keys(DIALECTS), "TextGrad", "OptoPrimeMulti", ...Object.keys(OPTIMIZER_ALIASES), ...Object.keys(UNAVAILABLE_OPTIMIZERS)];

export class UnknownOptimizerError extends Error {
  override readonly name = "UnknownOptimizerError";
}

/** The first mapping of a list of kwargs (one optimizer per parameter group; every task here has one group). */
const ownKwargs = (kwargs: Kwargs | readonly Kwargs[]): Kwargs => (Array.isArray(kwargs) ? (kwargs[0] ?? {}) : (kwargs as Kwargs));

/** What validate refuses in an optimizer's kwargs: the key (inside optimizer_kwargs) and one line with the fix. */
export function optimizerKwargsProblems(name: string, kwargs: Kwargs | readonly Kwargs[]): { readonly key: string; readonly text: string }[] {
  return name === "OptoPrimeMulti" ? optoPrimeMultiKwargsProblems(ownKwargs(kwargs)) : [];
}

export function createOptimizer(name: string, kwargs: Kwargs | readonly Kwargs[], llm: Llm): Optimizer {
  const own = ownKwargs(kwargs);
  if (name === "TextGrad") return new TextGradOptimizer(llm, textGradOptions(own));
  if (name === "OptoPrimeMulti") return new OptoPrimeMulti(llm, optoPrimeMultiOptions(own));
  const aliasOf = OPTIMIZER_ALIASES[name];
  const dialect = aliasOf !== undefined ? { ...DIALECTS[aliasOf]!, name } : DIALECTS[name];
  if (dialect === undefined) {
    const why = UNAVAILABLE_OPTIMIZERS[name];
    throw new UnknownOptimizerError(why ? `optimizer '${name}' is not available: ${why}` : `unknown optimizer '${name}'; known: ${OPTIMIZER_NAMES.join(", ")}`);
  }
  return new PromptOptimizer(dialect, llm, promptOptimizerOptions(own));
}
