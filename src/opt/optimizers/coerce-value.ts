/**
 * Turning a proposed value back into the parameter's type (algorithms reference §2.2
 * `construct_update_dict`): numbers parse from text, JSON values from JSON or Python literals.
 * A value that does not fit leaves the parameter unchanged.
 */
import type { JsonValue, ParameterKind } from "../parameter.js";

export type Coerced = { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly problem: string };

function pythonLiteralToJson(text: string): unknown {
  const json = text
    .replace(/\bTrue\b/g, "true")
    .replace(/\bFalse\b/g, "false")
    .replace(/\bNone\b/g, "null")
    .replace(/'((?:[^'\\]|\\.)*)'/g, (_m, inner: string) => JSON.stringify(inner.replace(/\\'/g, "'")))
    .replace(/\(([^()]*)\)/g, "[$1]");
  return JSON.parse(json);
}

export function coerceValue(kind: ParameterKind, proposed: unknown): Coerced {
  switch (kind) {
    case "number":
    case "integer": {
      const value = typeof proposed === "number" ? proposed : Number(String(proposed).trim());
      if (typeof proposed === "boolean" || String(proposed).trim() === "" || !Number.isFinite(value)) return { ok: false, problem: `not a number: ${JSON.stringify(proposed)}` };
      if (kind === "integer" && !Number.isInteger(value)) return { ok: true, value: Math.trunc(value) };
      return { ok: true, value };
    }
    case "text":
    case "code":
      return { ok: true, value: typeof proposed === "string" ? proposed : JSON.stringify(proposed) };
    case "json": {
      if (typeof proposed !== "string") return { ok: true, value: proposed as JsonValue };
      try {
        return { ok: true, value: JSON.parse(proposed) as JsonValue };
      } catch {
        try {
          return { ok: true, value: pythonLiteralToJson(proposed) as JsonValue };
        } catch {
          return { ok: false, problem: `not a JSON or Python literal: ${proposed.slice(0, 80)}` };
        }
      }
    }
  }
}
