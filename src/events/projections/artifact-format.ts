/**
 * How projection files are written: sanitized JSON (Python's `json.dumps(indent=2)` layout),
 * YAML in PyYAML's block style, and CSV the way Python's `csv` module writes it (`\r\n` rows,
 * quotes only when needed).
 */
import YAML, { Scalar } from "yaml";
import { canonicalJson, PyFloat, pythonFloatRepr, pythonPrettyJson } from "../../codec/python-json.js";

export const REDACTED = "***REDACTED***";

/**
 * Whether a key or variable name holds a secret (`OPENAI_API_KEY`, `HF_TOKEN`, `password`).
 * Token *counts* (`prompt_tokens`, `max_tokens`, `token_scope`) and `api_key_env` (a variable's
 * name, not its value) are not secrets; the original redacted them all.
 */
const secretNames = new Map<string, boolean>();

export function isSecretName(name: string): boolean {
  let known = secretNames.get(name);
  if (known === undefined) {
    known = secretPattern(name);
    if (secretNames.size < 10_000) secretNames.set(name, known);
  }
  return known;
}

function secretPattern(name: string): boolean {
  const upper = name.toUpperCase().replace(/[^A-Z0-9]+/g, "_");
  if (upper.endsWith("_ENV")) return false;
  return /(^|_)(API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|SECRET|PASSWORD|PASSWD|CREDENTIALS?)(_|$)/.test(upper) || /(^|_)(KEY|TOKEN)$/.test(upper);
}

/**
 * A JSON-safe copy: secrets redacted, `PyFloat`s as numbers, non-plain objects as strings. Objects
 * are copied key by key (every job's outcome and every rendered file passes through here: the
 * entry arrays of `Object.entries` and `Object.fromEntries` were a few percent of a run's garbage).
 */
export function sanitize(value: unknown): unknown {
  if (value === null || typeof value !== "object") return typeof value === "number" && !Number.isFinite(value) ? null : value;
  if (value instanceof PyFloat) return value.value;
  if (Array.isArray(value)) return value.map(sanitize);
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return String(value);
  const source = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const item = isSecretName(key) ? REDACTED : sanitize(source[key]);
    // An own "__proto__" key stays a key (assigning it would set the copy's prototype).
    if (key === "__proto__") Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy;
}

/** A JSON artifact: sanitized, 2-space indent, insertion order, trailing newline. */
export function jsonArtifact(value: unknown, options: { readonly ensureAscii?: boolean } = {}): string {
  return `${pythonPrettyJson(sanitize(value), options)}\n`;
}

/** One compact JSON line (jsonl), non-ASCII kept. */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(sanitize(value))}\n`;
}

function yamlReady(value: unknown): unknown {
  if (value instanceof PyFloat) {
    const node = new Scalar(value.value);
    node.minFractionDigits = 1; // keeps `1.0` a float when the file is loaded again
    return node;
  }
  if (Array.isArray(value)) return value.map(yamlReady);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, yamlReady(v)]));
  return value;
}

/** One document reused for every dump: building a document's schema is most of a small dump's cost. */
const yamlDocument = new YAML.Document(null, { aliasDuplicateObjects: false });
const YAML_OPTIONS = { indentSeq: false, lineWidth: 0 } as const;

/** YAML in PyYAML's `safe_dump(sort_keys=False)` style: block style, list items not indented. */
export function yamlArtifact(value: unknown): string {
  yamlDocument.contents = yamlDocument.createNode(yamlReady(value));
  const text = yamlDocument.toString(YAML_OPTIONS);
  // Not kept until the next dump: the run's config snapshot is one (a node per seed of a big matrix).
  yamlDocument.contents = null;
  return text;
}

/** A CSV cell as Python's csv module writes `str(value)`; nested values as sorted JSON. */
export function csvCell(value: unknown, kind: "float" | "plain" = "plain"): string {
  let text: string;
  if (value === null || value === undefined) text = "";
  else if (typeof value === "number") text = kind === "float" || !Number.isInteger(value) ? pythonFloatRepr(value) : String(value);
  else if (typeof value === "boolean") text = value ? "True" : "False";
  else if (typeof value === "string") text = value;
  else text = canonicalJson(sanitize(value), false);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(cells: readonly string[]): string {
  return `${cells.join(",")}\r\n`;
}
