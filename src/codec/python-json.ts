/**
 * Python-compatible JSON: `json.dumps(obj, sort_keys=True, default=str)` byte for byte.
 *
 * Job ids are hashes of this text, so it must agree with the Python Trace-Bench exactly:
 * `", "` / `": "` separators, ASCII escaping, keys sorted by code point, and Python's float
 * repr (`1.0`, `1e-05`, `1e+16`). A JS number cannot tell `1` from `1.0`, so configs keep
 * integral floats as `PyFloat` (see config/config-file.ts).
 */

/** A float whose value happens to be integral (`1.0` in YAML): hashed as `1.0`, not `1`. */
export class PyFloat {
  constructor(readonly value: number) {}
  toJSON(): number {
    return this.value;
  }
}

/** Python's `repr(float)`: shortest round-trip digits, exponent form when decpt <= -4 or > 16. */
export function pythonFloatRepr(x: number): string {
  // Between 1e-4 and 1e16 both languages write the same shortest digits in fixed notation; an
  // integral value then lacks only Python's ".0". (Scores are formatted for every job's log line
  // and table cell; the digit-by-digit route below is what the other magnitudes need.)
  const magnitude = Math.abs(x);
  if (magnitude >= 1e-4 && magnitude < 1e16) return Number.isInteger(x) ? `${x}.0` : String(x);
  return floatReprByDigits(x);
}

/** `pythonFloatRepr` from the shortest digits and the decimal exponent, for every value. */
export function floatReprByDigits(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const [mantissa, expText] = Math.abs(x).toExponential().split("e");
  const digits = mantissa!.replace(".", "");
  const exponent = Number(expText);
  const decpt = exponent + 1;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) return `${sign}0.${"0".repeat(-decpt)}${digits}`;
    if (decpt >= digits.length) return `${sign}${digits}${"0".repeat(decpt - digits.length)}.0`;
    return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
  }
  const fraction = digits.length > 1 ? `.${digits.slice(1)}` : "";
  const expSign = exponent < 0 ? "-" : "+";
  return `${sign}${digits[0]}${fraction}e${expSign}${String(Math.abs(exponent)).padStart(2, "0")}`;
}

/** A number as Python would print it: integers as ints, everything else as a float repr. */
export function pythonNumberRepr(x: number): string {
  return Number.isInteger(x) ? String(x) : pythonFloatRepr(x);
}

const NEEDS_ESCAPE_ASCII = /[^\x20-\x7e]|["\\]/;
const NEEDS_ESCAPE = /[\x00-\x1f"\\]/;

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

/**
 * A JSON string literal as Python writes it. With `ensure_ascii` (the default, as in hashing)
 * everything outside ASCII becomes `\uXXXX`; without it only control characters are escaped.
 */
export function pythonJsonString(s: string, ensureAscii = true): string {
  // Most strings need no escaping at all.
  if (!(ensureAscii ? NEEDS_ESCAPE_ASCII : NEEDS_ESCAPE).test(s)) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    const code = s.charCodeAt(i);
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) out += short;
    else if (code < 0x20 || (ensureAscii && code > 0x7e)) {
      // UTF-16 code units are exactly what Python emits (surrogate pairs for astral characters);
      // DEL (0x7f) is outside Python's printable range too.
      out += `\\u${code.toString(16).padStart(4, "0")}`;
    } else out += ch;
  }
  return out + '"';
}

/** Python sorts str keys by code point; JS's default sort compares UTF-16 code units. */
function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const na = ia.next();
    const nb = ib.next();
    if (na.done || nb.done) return na.done === nb.done ? 0 : na.done ? -1 : 1;
    const d = na.value.codePointAt(0)! - nb.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

const SURROGATE = /[\ud800-\udfff]/;

/**
 * An object's keys in Python's order. Without surrogates, UTF-16 order is code point order and
 * the built-in sort is used (the comparison by code points walks string iterators, and keys are
 * sorted for every job id and every nested cell of the results table).
 */
function sortedKeys(value: object): string[] {
  const keys = Object.keys(value);
  if (keys.length < 2) return keys;
  for (const key of keys) if (SURROGATE.test(key)) return keys.sort(compareCodePoints);
  return keys.sort();
}

/** `str(obj)` for values JSON cannot hold (Python's `default=str`). */
function pythonStrOfObject(value: unknown): string {
  if (value instanceof Date) {
    // str(datetime): microseconds only when non-zero.
    const iso = value.toISOString();
    const ms = value.getUTCMilliseconds();
    return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${ms === 0 ? "" : `.${String(ms).padStart(3, "0")}000`}`;
  }
  return String(value);
}

/** `json.dumps(value, sort_keys=True, default=str)` (with `ensure_ascii=False` when asked). */
export function canonicalJson(value: unknown, ensureAscii = true): string {
  if (value === null || value === undefined) return "null";
  if (value instanceof PyFloat) return pythonFloatRepr(value.value);
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      return pythonNumberRepr(value);
    case "bigint":
      return value.toString();
    case "string":
      return pythonJsonString(value, ensureAscii);
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, ensureAscii)).join(", ")}]`;
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype || isNullProto(value)) {
    const keys = sortedKeys(value as object);
    // Most kwargs in a results table are empty.
    if (keys.length === 0) return "{}";
    let text = "";
    for (const k of keys) text += `${text === "" ? "{" : ", "}${pythonJsonString(k, ensureAscii)}: ${canonicalJson((value as Record<string, unknown>)[k], ensureAscii)}`;
    return `${text}}`;
  }
  return pythonJsonString(pythonStrOfObject(value), ensureAscii);
}

function isNullProto(value: unknown): boolean {
  return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === null;
}

/** Python's `str()` of a scalar config value (used where the original coerces with `str()`). */
export function pythonStr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (value instanceof PyFloat) return pythonFloatRepr(value.value);
  if (typeof value === "number") return pythonNumberRepr(value);
  if (typeof value === "string") return value;
  return canonicalJson(value);
}

/** `json.dumps(value, indent=2, ensure_ascii=...)`: insertion order, for files people read. */
export function pythonPrettyJson(value: unknown, options: { readonly ensureAscii?: boolean; readonly depth?: number } = {}): string {
  // `depth`: the value is rendered as it is nested that deep in a document (its lines indented so).
  return prettyJson(value, options.depth ?? 0, options.ensureAscii ?? false);
}

/** Indentation of each depth, made once: every job's files render a few hundred lines. */
const INDENTS: string[] = [];
const indentOf = (depth: number): string => (INDENTS[depth] ??= " ".repeat(2 * depth));

/**
 * One value as `pythonPrettyJson` renders it at `depth`, appended into one string as it goes:
 * mapping entries to strings and joining them allocated more, and rendering is most of the derived
 * files' work besides the file system (docs/performance.md, ledger).
 */
function prettyJson(v: unknown, depth: number, ensureAscii: boolean): string {
  if (typeof v === "string") return pythonJsonString(v, ensureAscii);
  if (v === null || typeof v !== "object" || v instanceof PyFloat) return canonicalJson(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    const pad = indentOf(depth + 1);
    let out = `[\n${pad}${prettyJson(v[0], depth + 1, ensureAscii)}`;
    for (let i = 1; i < v.length; i++) out += `,\n${pad}${prettyJson(v[i], depth + 1, ensureAscii)}`;
    return `${out}\n${indentOf(depth)}]`;
  }
  const prototype: unknown = Object.getPrototypeOf(v);
  if (prototype !== Object.prototype && prototype !== null) return canonicalJson(v);
  const pad = indentOf(depth + 1);
  const record = v as Record<string, unknown>;
  let out = "";
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (item === undefined) continue;
    out += `${out === "" ? "{\n" : ",\n"}${pad}${pythonJsonString(key, ensureAscii)}: ${prettyJson(item, depth + 1, ensureAscii)}`;
  }
  return out === "" ? "{}" : `${out}\n${indentOf(depth)}}`;
}
