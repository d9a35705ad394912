/**
 * Python's `repr()` of JSON values, for texts that must equal what the original builds with
 * `str()`/`repr()` (POLCA's embedded candidate text, feedback that shows lists as the original prints them).
 */
import { pythonNumberRepr } from "./python-json.js";

/** Python's repr of a str: single quotes unless the text holds ' and no ". */
export function pythonStrRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return out + quote;
}

/** Python's repr of a JSON value (dicts keep their key order, as Python's do). */
export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return pythonNumberRepr(value);
  if (typeof value === "string") return pythonStrRepr(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(", ")}]`;
  if (typeof value === "object") return `{${Object.entries(value).map(([k, v]) => `${pythonStrRepr(k)}: ${pythonRepr(v)}`).join(", ")}}`;
  return pythonStrRepr(String(value));
}
