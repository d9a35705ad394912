/**
 * The `objective_config` trainer kwarg as a config file writes it: a mapping with the reference's
 * field names (`mode`, `weights`, `minimize`, `missing_value`, `pareto_metrics`, `tie_break`,
 * `seed`, `scalarize_dict`, `score_key`). A mistake is one line naming the field and the fix.
 */
import { toPlain } from "../../config/kwargs.js";
import { objectiveConfig, ObjectiveConfigError, type ObjectiveConfig } from "./objective-config.js";

export const OBJECTIVE_CONFIG_FIELDS = ["mode", "weights", "minimize", "missing_value", "pareto_metrics", "tie_break", "seed", "scalarize_dict", "score_key"] as const;

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function names(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    throw new ObjectiveConfigError(`objective_config.${field}: expected a list of metric names, e.g. [tokens, latency_s]`);
  }
  return value;
}

function number(value: unknown, field: string): number {
  if (value === "-inf" || value === "-.inf") return Number.NEGATIVE_INFINITY;
  if (typeof value !== "number" || Number.isNaN(value)) throw new ObjectiveConfigError(`objective_config.${field}: expected a number, found ${JSON.stringify(value)}`);
  return value;
}

function text(value: unknown, field: string): string {
  if (typeof value !== "string") throw new ObjectiveConfigError(`objective_config.${field}: expected a string, found ${JSON.stringify(value)}`);
  return value;
}

/** The ObjectiveConfig a kwarg value describes; null for an absent (null) kwarg. */
export function objectiveConfigFromKwarg(raw: unknown): ObjectiveConfig | null {
  const value = toPlain(raw);
  if (value === null || value === undefined) return null;
  if (!isMapping(value)) {
    throw new ObjectiveConfigError(`objective_config: expected a mapping such as {mode: weighted, weights: {accuracy: 1.0}}, found ${JSON.stringify(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (!(OBJECTIVE_CONFIG_FIELDS as readonly string[]).includes(key)) {
      throw new ObjectiveConfigError(`objective_config: unknown field '${key}' (valid: ${OBJECTIVE_CONFIG_FIELDS.join(", ")})`);
    }
  }
  let weights: Record<string, number> | undefined;
  if (value["weights"] !== undefined && value["weights"] !== null) {
    if (!isMapping(value["weights"])) throw new ObjectiveConfigError("objective_config.weights: expected a mapping of metric to weight, e.g. {accuracy: 1.0, tokens: 0.001}");
    weights = Object.fromEntries(Object.entries(value["weights"]).map(([metric, w]) => [metric, number(w, `weights.${metric}`)]));
  }
  const seed = value["seed"] === undefined ? undefined : number(value["seed"], "seed");
  if (seed !== undefined && (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)) {
    throw new ObjectiveConfigError(`objective_config.seed: expected a whole number from 0 to 4294967295, found ${seed}`);
  }
  try {
    return objectiveConfig({
      ...(value["mode"] === undefined ? {} : { mode: text(value["mode"], "mode") }),
      ...(weights === undefined ? {} : { weights }),
      ...(value["minimize"] === undefined || value["minimize"] === null ? {} : { minimize: names(value["minimize"], "minimize") }),
      ...(value["missing_value"] === undefined ? {} : { missingValue: number(value["missing_value"], "missing_value") }),
      ...(value["pareto_metrics"] === undefined || value["pareto_metrics"] === null ? {} : { paretoMetrics: names(value["pareto_metrics"], "pareto_metrics") }),
      ...(value["tie_break"] === undefined ? {} : { tieBreak: text(value["tie_break"], "tie_break") }),
      ...(seed === undefined ? {} : { seed }),
      ...(value["scalarize_dict"] === undefined ? {} : { scalarizeDict: text(value["scalarize_dict"], "scalarize_dict") }),
      ...(value["score_key"] === undefined ? {} : { scoreKey: text(value["score_key"], "score_key") }),
    });
  } catch (error) {
    if (error instanceof ObjectiveConfigError && !error.message.startsWith("objective_config")) throw new ObjectiveConfigError(`objective_config: ${error.message}`);
    throw error;
  }
}
