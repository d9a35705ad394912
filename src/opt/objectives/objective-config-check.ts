/**
 * The config check of `objective_config` (`validate --strict` and `run`): a bad value is one line
 * naming the field, and a trainer that cannot select by an objective refuses the key, naming the
 * trainers that can.
 */
import { acceptedTrainerKwargs, TRAINER_CATALOG } from "../trainer-catalog.js";
import { objectiveConfigFromKwarg } from "./objective-config-kwarg.js";

export const OBJECTIVE_CONFIG_KWARG = "objective_config";

/** What is wrong with an `objective_config` value, or null when it is a valid one. */
export function objectiveConfigProblem(value: unknown): string | null {
  try {
    objectiveConfigFromKwarg(value);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** "use one of X, Y, Z, or remove it": the available trainers that take `objective_config`. */
export async function objectiveTrainersHint(): Promise<string> {
  const takers: string[] = [];
  for (const info of TRAINER_CATALOG) {
    if (info.available && (await acceptedTrainerKwargs(info)).includes(OBJECTIVE_CONFIG_KWARG)) takers.push(info.id);
  }
  return `use a trainer that selects by an objective (${takers.join(", ")}) or remove it`;
}
