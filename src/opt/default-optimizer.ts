import type { ParameterSpec } from "../domain/parameter.js";

/**
 * The optimizer used when a trainer names none (as OpenTrace's `train` picks it): OPROv2 for a
 * task that is a single parameter, OptoPrimeV2 for an agent with several.
 */
export function defaultOptimizerFor(parameters: readonly ParameterSpec[]): string {
  return parameters.length === 1 ? "OPROv2" : "OptoPrimeV2";
}
