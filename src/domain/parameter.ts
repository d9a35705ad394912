/**
 * Trainable parameters: the values an optimizer may change. A job's parameter state is plain
 * data (`ParameterValues`), so it can be recorded in events and restored after a crash.
 */
import type { JsonValue } from "./json-value.js";

/** What the value is, which decides how an optimizer's proposal is coerced back. */
export type ParameterKind = "text" | "code" | "number" | "integer" | "json";

export interface ParameterSpec {
  readonly name: string;
  readonly kind: ParameterKind;
  readonly value: JsonValue;
  /** Shown to the optimizer: what the parameter is for and how it must look. */
  readonly description: string;
  readonly trainable: boolean;
}

export type ParameterValues = Readonly<Record<string, JsonValue>>;

export function initialValues(parameters: readonly ParameterSpec[]): ParameterValues {
  return Object.fromEntries(parameters.map((p) => [p.name, p.value]));
}

export function trainableParameters(parameters: readonly ParameterSpec[]): ParameterSpec[] {
  return parameters.filter((p) => p.trainable);
}
