/**
 * The short, stable label of a params variant, part of every comparison key (results, aggregates,
 * leaderboard, console, dashboard, `compare`): its kwargs as configured, `key=value` sorted by key
 * and joined by commas (`ps_batches=1,ps_steps=2`). A trainer without params (an empty variant) is
 * `default`; no other variant can be, since every other label holds a `=`.
 *
 * The label depends on the variant alone, never on its neighbours in the config, so the same
 * variant has the same label in every run (what `compare` pairs on). Values: numbers as Python
 * writes them (`2`, `0.5`, `1e-05`; `1.0` and `1` alike, as a log's JSON keeps them), `true`,
 * `false`, `null`, a string bare when it reads unambiguously (`OptoPrimeV2`), else JSON-quoted
 * (`"2"`, `"a b"`); lists and mappings as canonical JSON. A label over 96 characters keeps its first
 * 80 and adds `~` and 8 hex digits of the full label's SHA-256, so it stays short and distinct.
 */
import { canonicalJson, pythonNumberRepr } from "../codec/python-json.js";
import { sha256Hex } from "./hashing.js";
import { toPlain } from "./kwargs.js";

export const DEFAULT_VARIANT_LABEL = "default";

const LONGEST_LABEL = 96;
const KEPT_PREFIX = 80;

/** A string that cannot be read as a number, a boolean, null, or as holding the label's separators. */
const BARE_STRING = /^[A-Za-z_][A-Za-z0-9_.:/+-]*$/;
const READS_AS_OTHER = /^(true|false|null|none|nan|inf|infinity)$/i;

function valueText(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "number") return pythonNumberRepr(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "string") return BARE_STRING.test(value) && !READS_AS_OTHER.test(value) ? value : JSON.stringify(value);
  return canonicalJson(value, false).replace(/, /g, ",").replace(/": /g, '":');
}

/** The label of one variant's kwargs (see the file comment). */
export function variantLabelOf(params: Readonly<Record<string, unknown>>): string {
  const plain = toPlain(params) as Record<string, unknown>;
  const keys = Object.keys(plain).sort();
  if (keys.length === 0) return DEFAULT_VARIANT_LABEL;
  const label = keys.map((k) => `${k}=${valueText(plain[k])}`).join(",");
  return label.length <= LONGEST_LABEL ? label : `${label.slice(0, KEPT_PREFIX)}~${sha256Hex(label).slice(0, 8)}`;
}

/** Labels already made, by the (shared, frozen) params object of a matrix cell: a 50,000-job run asks for them often. */
const labels = new WeakMap<object, string>();

/** `variantLabelOf`, remembered per params object. */
export function variantLabel(params: Readonly<Record<string, unknown>>): string {
  const known = labels.get(params);
  if (known !== undefined) return known;
  const label = variantLabelOf(params);
  labels.set(params, label);
  return label;
}

/** How a job line names its variant after the trainer: ` [ps_steps=2]`, nothing for the default variant. */
export function variantSuffix(params: Readonly<Record<string, unknown>>): string {
  const label = variantLabel(params);
  return label === DEFAULT_VARIANT_LABEL ? "" : ` [${label}]`;
}
