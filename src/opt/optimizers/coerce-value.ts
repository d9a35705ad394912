/**
 * Turning a proposed value back into the parameter's type (algorithms reference §2.2
 * `construct_update_dict`): numbers parse from text, JSON values from JSON or Python literals.
 * A value that does not fit leaves the parameter unchanged.
 */
import type { JsonValue } from "../../domain/json-value.js";
import type { ParameterKind } from "../../domain/parameter.js";

export type Coerced = { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly problem: string };

const ESCAPES: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", "0": "\0", "\\": "\\", "'": "'", '"': '"', "\n": "" };

/**
 * Python's `ast.literal_eval` for the literals an LLM writes: dicts, lists, tuples and sets (as
 * lists), quoted strings, numbers, True/False/None. A tokenizer, so that `'None of these'` and
 * `'f(x)'` stay strings and tuples may nest; throws on anything else.
 */
function parsePythonLiteral(text: string): JsonValue {
  let i = 0;
  const fail = (): never => {
    throw new SyntaxError(`not a Python literal at offset ${i}`);
  };
  const skip = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const string = (): string => {
    const quote = text[i++]!;
    let out = "";
    while (i < text.length && text[i] !== quote) {
      if (text[i] !== "\\") {
        out += text[i++];
        continue;
      }
      const next = text[i + 1] ?? fail();
      const digits = next === "x" ? 2 : next === "u" ? 4 : 0;
      const code = text.slice(i + 2, i + 2 + digits);
      if (digits > 0 && code.length === digits && /^[0-9a-fA-F]+$/.test(code)) {
        out += String.fromCharCode(parseInt(code, 16));
        i += 2 + digits;
      } else {
        out += ESCAPES[next] ?? `\\${next}`;
        i += 2;
      }
    }
    if (text[i] !== quote) fail();
    i++;
    return out;
  };
  /** Comma-separated items from the opening bracket at `i` to `close` (a trailing comma allowed). */
  const items = <T>(close: string, item: () => T): T[] => {
    const out: T[] = [];
    i++;
    for (skip(); text[i] !== close; skip()) {
      out.push(item());
      skip();
      if (text[i] === ",") i++;
      else if (text[i] !== close) fail();
    }
    i++;
    return out;
  };
  const value = (): JsonValue => {
    skip();
    const ch = text[i];
    if (ch === "'" || ch === '"') return string();
    if (ch === "[") return items("]", value);
    if (ch === "(") return items(")", value);
    if (ch === "{") {
      // A dict, or a set (read as a list) when its first item is not followed by a colon.
      const start = i;
      const isSet = (): boolean => {
        i++;
        skip();
        if (text[i] === "}") return false;
        value();
        skip();
        return text[i] !== ":";
      };
      const set = isSet();
      i = start;
      if (set) return items("}", value);
      const entries = items("}", (): [string, JsonValue] => {
        const key = value();
        skip();
        if (text[i++] !== ":") fail();
        return [typeof key === "string" ? key : JSON.stringify(key), value()];
      });
      return Object.fromEntries(entries);
    }
    const word = /^(?:True|False|None)\b/.exec(text.slice(i));
    if (word) {
      i += word[0].length;
      return word[0] === "True" ? true : word[0] === "False" ? false : null;
    }
    const number = /^[+-]?(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?/.exec(text.slice(i));
    if (!number) return fail();
    i += number[0].length;
    return Number(number[0].replace(/_/g, ""));
  };
  const result = value();
  skip();
  if (i < text.length) fail();
  return result;
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
          return { ok: true, value: parsePythonLiteral(proposed) };
        } catch {
          return { ok: false, problem: `not a JSON or Python literal: ${proposed.slice(0, 80)}` };
        }
      }
    }
  }
}
