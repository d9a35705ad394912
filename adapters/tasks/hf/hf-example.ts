/**
 * One QA example as the hf row shapers make it (the original's `HFQATask`): the question the
 * agent sees, the flattened context, the gold answer, and what a guide needs besides (aliases,
 * option labels, unit tests). Plain JSON, so datasets can be recorded and compared.
 */
import type { JsonValue } from "../../../src/domain/json-value.js";

export interface HfExample {
  readonly question: string;
  readonly context: string;
  readonly answer: string;
  readonly meta: Readonly<Record<string, JsonValue>>;
}

export type HfRow = Readonly<Record<string, unknown>>;

export function hfExample(question: string, context: string, answer: string, meta: Record<string, JsonValue> = {}): HfExample {
  return { question, context, answer, meta };
}

/** The example a guide gets as `info` (question-only datasets pass the example; BBEH passes the answer). */
export function asExample(info: unknown): HfExample {
  if (typeof info === "object" && info !== null && "answer" in info) return info as HfExample;
  return hfExample("", "", String(info ?? ""));
}

/** A row lacks a field the entry names: the dataset does not have the schema the task expects. */
export class HfRowError extends Error {}

/** The row's field, or the original's error: "<Label> row missing <role> field '<name>'". */
export function requireField(row: HfRow, field: string, role: string, label: string): unknown {
  if (!Object.hasOwn(row, field)) throw new HfRowError(`${label} row missing ${role} field '${field}'`);
  return row[field];
}

/** Python's `row.get(field, fallback)`: the fallback only when the field is absent (a null stays null). */
export function rowGet(row: HfRow, field: string, fallback: unknown): unknown {
  return Object.hasOwn(row, field) ? row[field] : fallback;
}
