/**
 * How projection files are written: sanitized JSON (Python's `json.dumps(indent=2)` layout),
 * YAML as PyYAML's `safe_dump` writes it, and CSV the way Python's `csv` module writes it (`\r\n` rows,
 * quotes only when needed).
 */
import { canonicalJson, PyFloat, pythonFloatRepr, pythonPrettyJson } from "../../codec/python-json.js";
import { pythonSafeDump } from "../../codec/python-yaml.js";
import { BoundedMemo } from "../../runtime/bounded-memo.js";

export const REDACTED = "***REDACTED***";

/**
 * Whether a key or variable name holds a secret (`OPENAI_API_KEY`, `HF_TOKEN`, `password`).
 * Token *counts* (`prompt_tokens`, `max_tokens`, `token_scope`) and `api_key_env` (a variable's
 * name, not its value) are not secrets; the original redacted them all.
 */
export function isSecretName(name: string): boolean {
  return secretNames.get(name, () => secretPattern(name));
}

/** Answers by name: every key of every rendered value is asked, and a run's values share a few hundred names. */
const secretNames = new BoundedMemo<string, boolean>(10_000);

function secretPattern(name: string): boolean {
  const upper = name.toUpperCase().replace(/[^A-Z0-9]+/g, "_");
  if (upper.endsWith("_ENV")) return false;
  return /(^|_)(API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|SECRET|PASSWORD|PASSWD|CREDENTIALS?)(_|$)/.test(upper) || /(^|_)(KEY|TOKEN)$/.test(upper);
}

/**
 * Whether a `sanitize` met a value that `JSON.stringify` leaves out or refuses (a function, a
 * symbol, a bigint), which `pythonPrettyJson` writes as text: then only that renders it as Python does.
 */
interface ExoticWatch {
  seen: boolean;
}

/**
 * Whether `sanitize` would change anything in `value` or meet a value `JSON.stringify` cannot
 * write. Most rendered values hold no secret and nothing to convert: looking costs a fraction of
 * copying them (docs/performance.md: ledger, 514b50e).
 */
function needsSanitizing(value: unknown): boolean {
  if (value === null) return false;
  switch (typeof value) {
    case "object":
      break;
    case "number":
      return !Number.isFinite(value);
    case "string":
    case "boolean":
    case "undefined":
      return false;
    default:
      return true;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (needsSanitizing(value[i])) return true;
    return false;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return true;
  const record = value as Record<string, unknown>;
  // `for in` also meets enumerable inherited keys, which can only make the answer "copy it".
  for (const key in record) if (isSecretName(key) || needsSanitizing(record[key])) return true;
  return false;
}

/**
 * A JSON-safe copy: secrets redacted, `PyFloat`s as numbers, non-plain objects as strings. Objects
 * are copied key by key (every job's outcome and every rendered file passes through here: the
 * entry arrays of `Object.entries` and `Object.fromEntries` were a few percent of a run's garbage).
 */
export function sanitize(value: unknown): unknown {
  return sanitizeWatched(value, null);
}

/** `sanitize`, noting in `watch` a value `JSON.stringify` cannot write. */
function sanitizeWatched(value: unknown, watch: ExoticWatch | null): unknown {
  if (value === null) return value;
  switch (typeof value) {
    case "object":
      break;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "string":
    case "boolean":
    case "undefined":
      return value;
    default:
      if (watch !== null) watch.seen = true;
      return value;
  }
  if (value instanceof PyFloat) return value.value;
  if (Array.isArray(value)) return value.map((item) => sanitizeWatched(item, watch));
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return String(value);
  const source = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const item = isSecretName(key) ? REDACTED : sanitizeWatched(source[key], watch);
    // An own "__proto__" key stays a key (assigning it would set the copy's prototype).
    if (key === "__proto__") Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy;
}

/** What `sanitize` makes of `value`, for reading only: the value itself where it would change nothing. */
function sanitizedForReading(value: unknown, watch: ExoticWatch | null = null): unknown {
  return needsSanitizing(value) ? sanitizeWatched(value, watch) : value;
}

/**
 * Where V8's `JSON.stringify(value, null, 2)` may lay a sanitized value out otherwise than Python's
 * `json.dumps(indent=2, ensure_ascii=False)`: a number below 1e-4 (Python writes `1e-05` where V8
 * writes `0.00001` or `1e-7`; every other finite number is written alike, as shortest round-trip
 * digits) and a lone surrogate (V8 escapes it). Only a number follows `: `, a line's indent or
 * nothing; a string that happens to match only costs the slower rendering.
 */
const LAYOUT_MAY_DIFFER = /(?:^|: |\n *)-?(?:0\.0000|\d(?:\.\d+)?e-)|\\ud[89a-f]/;

/** `LAYOUT_MAY_DIFFER`, asked only of a text that holds one of its literal parts (searching those is several times faster). */
const layoutMayDiffer = (text: string) => (text.includes("e-") || text.includes("0.0000") || text.includes("\\ud")) && LAYOUT_MAY_DIFFER.test(text);

/**
 * `pythonPrettyJson(sanitize(value), options)`, rendered by `JSON.stringify` where that writes the
 * same bytes: every other layout rule (2-space indent, `,` and `: `, insertion order, the escapes
 * without `ensure_ascii`) is Python's. Native rendering is most of what a replay of a small run
 * saves, since its rendering code never warms up.
 */
export function sanitizedJson(value: unknown, options: { readonly ensureAscii?: boolean; readonly depth?: number } = {}): string {
  const exotic: ExoticWatch = { seen: false };
  const clean = sanitizedForReading(value, exotic);
  if (options.ensureAscii !== true && !exotic.seen) {
    const depth = options.depth ?? 0;
    // Nested in `depth` arrays, the value is laid out as deep as it is in its document; then the
    // arrays' own text is cut off (a slice: re-indenting the text copied it). Each array opens
    // with "[\n" and its items' indent, 2 + 2i characters at depth i, and closes with "\n", its
    // own indent and "]".
    let nested = clean;
    for (let i = 0; i < depth; i++) nested = [nested];
    const text = JSON.stringify(nested, null, 2) as string | undefined;
    if (text !== undefined && !layoutMayDiffer(text)) return depth === 0 ? text : text.slice(depth * (depth + 3), text.length - depth * (depth + 1));
  }
  return pythonPrettyJson(clean, options);
}

/** A JSON artifact: sanitized, 2-space indent, insertion order, trailing newline. */
export function jsonArtifact(value: unknown, options: { readonly ensureAscii?: boolean } = {}): string {
  return `${sanitizedJson(value, options)}\n`;
}

/** One compact JSON line (jsonl), non-ASCII kept. */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(sanitizedForReading(value))}\n`;
}

/**
 * YAML as the Python original writes it, `yaml.safe_dump(value, sort_keys=False)`: a Python reader
 * loads the types it would have loaded (`'yes'`, `'12:30'` stay strings).
 */
export function yamlArtifact(value: unknown): string {
  return pythonSafeDump(value);
}

/** A CSV cell as Python's csv module writes `str(value)`; nested values as sorted JSON. */
export function csvCell(value: unknown, kind: "float" | "plain" = "plain"): string {
  // Only text can hold a quote, a comma or a line break.
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return kind === "float" || !Number.isInteger(value) ? pythonFloatRepr(value) : String(value);
  if (typeof value === "boolean") return value ? "True" : "False";
  const text = typeof value === "string" ? value : canonicalJson(sanitizedForReading(value), false);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(cells: readonly string[]): string {
  return `${cells.join(",")}\r\n`;
}
