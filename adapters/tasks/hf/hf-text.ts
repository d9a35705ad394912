/**
 * The answer-matching vocabulary every hf guide shares (the original's `common.py` rules):
 * SQuAD-style normalisation, token F1, the last number, the last choice letter, aliases.
 * Python's regex and `string.punctuation` semantics are kept, quirks included (see hf-guides.json).
 */
import { pythonStrRepr } from "../../../src/codec/python-repr.js";

/** Python's `string.punctuation`: ASCII only, so "é" or "’" survive normalisation. */
const PUNCTUATION = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");

/** Python's `\b` and `\w` are Unicode-aware; JavaScript's need the `u` flag and explicit classes. */
const ARTICLES = /(?<![\p{L}\p{N}_])(a|an|the)(?![\p{L}\p{N}_])/gu;

/** Lower-case, articles out, ASCII punctuation out, whitespace collapsed. */
export function normalizeText(text: string): string {
  let normalized = String(text).toLowerCase().replace(ARTICLES, " ");
  normalized = [...normalized].filter((ch) => !PUNCTUATION.has(ch)).join("");
  return pythonSplit(normalized).join(" ");
}

/** `str.split()` with no argument: runs of whitespace, no empty pieces. */
export function pythonSplit(text: string): string[] {
  return text.split(/[\s\u001c-\u001f\u0085]+/u).filter((piece) => piece !== "");
}

/** `str.strip()` with no argument. */
export function pyStrip(text: string): string {
  return text.replace(/^[\s\u001c-\u001f\u0085]+|[\s\u001c-\u001f\u0085]+$/gu, "");
}

/** Token-level F1 between the normalised prediction and gold. */
export function tokenF1(prediction: string, gold: string): number {
  const predicted = pythonSplit(normalizeText(prediction));
  const expected = pythonSplit(normalizeText(gold));
  if (predicted.length === 0 && expected.length === 0) return 1;
  if (predicted.length === 0 || expected.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const token of predicted) counts.set(token, (counts.get(token) ?? 0) + 1);
  let overlap = 0;
  for (const token of expected) {
    const left = counts.get(token) ?? 0;
    if (left > 0) {
      overlap += 1;
      counts.set(token, left - 1);
    }
  }
  if (overlap === 0) return 0;
  const precision = overlap / predicted.length;
  const recall = overlap / expected.length;
  return (2 * precision * recall) / (precision + recall);
}

/**
 * The final number as the original's pattern finds it: an optional sign, digits with commas and
 * a trailing dot kept ("The answer is 72." gives "72."), commas then dropped. Python's `\d` is
 * any Unicode decimal digit.
 */
export function extractLastNumber(text: string): string {
  const matches = String(text).match(/[-+]?\p{Nd}[\p{Nd},]*\.?\p{Nd}*/gu);
  return matches ? matches[matches.length - 1]!.replaceAll(",", "") : "";
}

/** The last "(X)" label, else the last standalone capital letter; a bare lower-case "b" is not a choice. */
export function extractLastChoice(text: string): string {
  const parenthesized = [...String(text).matchAll(/\(([A-Za-z0-9]+)\)/g)];
  if (parenthesized.length > 0) return parenthesized[parenthesized.length - 1]![1]!;
  const standalone = [...String(text).matchAll(/(?<![\p{L}\p{N}_])([A-Z])(?![\p{L}\p{N}_])/gu)];
  return standalone.length > 0 ? standalone[standalone.length - 1]![1]! : "";
}

/** Aliases deduplicated by their normalised text, display text kept; empty ones dropped. */
export function normalizeAliases(aliases: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const alias of aliases) {
    const key = normalizeText(alias);
    if (key !== "" && !seen.has(key)) {
      seen.add(key);
      out.push(String(alias).trim());
    }
  }
  return out;
}

/** Exact normalised match, then an alias contained in the reply, then the best token F1. */
export function bestAliasScore(prediction: string, aliases: readonly string[]): number {
  if (aliases.length === 0) return 0;
  const normalized = normalizeText(prediction);
  if (aliases.some((alias) => normalizeText(alias) === normalized)) return 1;
  if (aliases.some((alias) => normalized.includes(normalizeText(alias)))) return 1;
  return Math.max(...aliases.map((alias) => tokenF1(prediction, alias)));
}

/** Python's `repr()` of a list of strings: `['a', 'b']`. */
export function pythonListRepr(items: readonly string[]): string {
  return `[${items.map(pythonStrRepr).join(", ")}]`;
}

/** Python's `str()` of a dataset value: strings as they are, booleans and None as Python spells them. */
export function pyStr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(value);
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return `[${value.map(pyReprValue).join(", ")}]`;
  if (typeof value === "object") return `{${Object.entries(value as Record<string, unknown>).map(([k, v]) => `${pythonStrRepr(k)}: ${pyReprValue(v)}`).join(", ")}}`;
  return String(value);
}

function pyReprValue(value: unknown): string {
  return typeof value === "string" ? pythonStrRepr(value) : pyStr(value);
}

/** Python truthiness of a dataset value (`x or default`). */
export function pyTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value as object).length > 0;
  return true;
}
