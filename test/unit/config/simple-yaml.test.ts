/**
 * The simple reader must be invisible: whatever it accepts, it reads to exactly the values (types,
 * PyFloats, key order) and lines that the `yaml` package reader gives; everything else it leaves
 * to that reader. Checked on hand-picked cases and on seeded random documents (with random damage).
 */
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/config/config-error.js";
import type { ConfigSource } from "../../../src/config/config-file.js";
import { PyFloat } from "../../../src/codec/python-json.js";
import { readSimpleYaml, simpleYamlVerdict } from "../../../src/config/simple-yaml.js";
import { readWithYamlPackage } from "../../../src/config/yaml-package-reader.js";
import { mulberry32 } from "../../support/mulberry32.js";

/** A text rendering that tells apart everything the two readers could disagree on. */
function typed(value: unknown): string {
  if (value instanceof PyFloat) return `F(${Object.is(value.value, -0) ? "-0" : String(value.value)})`;
  if (typeof value === "number") return `N(${Object.is(value, -0) ? "-0" : String(value)})`;
  if (typeof value === "string") return JSON.stringify(value);
  if (value === null || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(typed).join(",")}]`;
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return `{${Object.keys(value)
      .map((k) => `${JSON.stringify(k)}:${typed((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return `?${typeof value}:${String(value)}`;
}

/** Every key path in `value`, plus paths that lead nowhere, for comparing `lineOf`. */
function probePaths(value: unknown, path: PropertyKey[] = [], out: PropertyKey[][] = []): PropertyKey[][] {
  out.push(path, [...path, "no-such-key"], [...path, 99]);
  if (Array.isArray(value)) value.forEach((v, i) => probePaths(v, [...path, i], out));
  else if (typeof value === "object" && value !== null && !(value instanceof PyFloat)) {
    for (const [k, v] of Object.entries(value)) probePaths(v, [...path, k], out);
  }
  return out;
}

type FullResult = { source: ConfigSource } | { error: unknown };
const readFull = (text: string): FullResult => {
  try {
    return { source: readWithYamlPackage("f.yaml", text) };
  } catch (error) {
    return { error };
  }
};

/** Asserts the simple reader either gives up on `text` or agrees with the full reader; returns whether it accepted. */
function agrees(text: string): boolean {
  const simple = readSimpleYaml(text);
  if (simple === undefined) return false;
  const full = readFull(text);
  if ("error" in full) throw new Error(`simple reader accepted what the full reader rejects:\n${text}\n--- ${String(full.error)}`);
  const context = `for:\n${text}`;
  expect(typed(simple.data), context).toBe(typed(full.source.data));
  for (const path of probePaths(full.source.data)) {
    expect(simple.lineOf(path), `${context}\nline of ${JSON.stringify(path)}`).toBe(full.source.lineOf(path));
  }
  return true;
}

const accepted = (text: string) => {
  const verdict = simpleYamlVerdict(text);
  expect(verdict, `gave up (${"reason" in verdict ? verdict.reason : ""}) on:\n${text}`).not.toHaveProperty("_tag");
  expect(agrees(text)).toBe(true);
};

describe("the simple reader agrees with the yaml package", () => {
  it.each([
    ["block mappings and lists", "tasks:\n  - internal:numeric_param\n  - id: a:b\n    eval_kwargs:\n      k: 1\ntrainers:\n- PrioritySearch\n- id: GEPA\n  params_variants:\n  - {ps_steps: 2}\n  -\n    threads: 3\nseeds: [1, 2, 3]\n"],
    ["PyYAML scalars", "v: [yes, no, on, off, True, FALSE, y, n, ~, null, '', 1.0, 1, 1.5, -2.0, 1., .5, 0x1F, 017, 1_000, 1:30, .inf, -.inf, .nan, 1e3, 1.0e+3, 2024-01-01]\n"],
    ["block scalars of every kind", "a: 1.0\nb: -3\nc: yes\nd: null\ne:\nf: ~\ng: 0o17\nh: +12\ni: 190:20:30\nj: 6.02e+23\n"],
    ["quoted scalars", `a: "x \\"y\\" \\u00e9 \\t"\nb: 'it''s'\nc: "#not a comment"\nd: ''\n"e f": "1.0"\n'g': 'yes'\n`],
    ["comments and blank lines", "# head\n\ntasks: # list\n  # inside\n  - a:b   # item\n\n  - c:d\n# tail\n"],
    ["document start", "---\ntasks: [a:b]\n"],
    ["JSON", '{\n  "tasks": ["a:b"],\n  "eval_kwargs": {"k": 1.0, "l": [true, null, "x"]},\n  "seed": 4\n}\n'],
    ["compact JSON", '{"a":1,"b":{"c":[1,2,{"d":"e"}]}}'],
    ["multi-line flow in a block", "seeds: [1,\n  2, 3,\n  4]\nparams: {a: 1,\n   b: [x, y]}\n"],
    ["plain scalars with indicators inside", "a: b:c\nb: a#b\nc: x, y\nd: -1\ne: 'q' \nf: http://h/p?q=1#frag\n"],
    ["keys that JS orders first", "b: 1\n'2': two\na: 3\n'10': ten\n"],
    ["nested compact mappings", "- a: 1\n  b:\n  - x\n  - y\n  c: {d: e}\n- f\n".replace(/^/, "l:\n").replace(/\n(?=.)/g, "\n  ")],
  ])("%s", (_name, text) => accepted(text));

  it.each([
    ["anchors and aliases", "base: &b {x: 1}\nuse: *b\n"],
    ["merge keys", "a: {<<: {x: 1}}\n"],
    ["tags", "a: !!str 1\n"],
    ["block scalars", "a: |\n  text\n"],
    ["multi-line plain scalars", "a: one\n  two\n"],
    ["multi-line quoted scalars", 'a: "one\n  two"\n'],
    ["tabs", "a:\n\t- x\n"],
    ["CRLF", "a: 1\r\nb: 2\r\n"],
    ["duplicate keys", "a: 1\na: 2\n"],
    ["non-string keys", "1: a\n"],
    ["a list at the top", "- a\n"],
    ["an empty document", "# nothing\n"],
    ["two documents", "a: 1\n---\nb: 2\n"],
    ["__proto__", "__proto__: {x: 1}\n"],
    ["deep nesting", `a: ${"[".repeat(80)}${"]".repeat(80)}\n`],
  ])("leaves %s to the yaml package", (_name, text) => {
    expect(readSimpleYaml(text)).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------
// Random documents.


// Mostly ordinary values and keys, some odd ones: the odd ones reach the give-up paths.
const PLAIN = [
  "a", "internal:numeric_param", "yes", "No", "on", "y", "n", "true", "False", "null", "~", "0", "1", "-1", "+1", "1.0", "-2.0", "1.",
  ".5", "1e3", "1.0e+3", "0x1F", "017", "1_000", "1:30", ".inf", "-.Inf", ".nan", "2024-01-01", "a b", "a#b", "a:b", "a,b", "x]",
  "http://x.y/z?q=1", "-x", "--x", "---", "ü", "日本", "it's", 'say "hi"', "=", "x\\y", "a{b}",
];
const ODD_PLAIN = [
  "OFF", "Null", "-0", "0o17", "0b101", "190:20:30", "+.5", "-0.0", "1.0e5", "6.02e+23", ".NaN", "2001-12-14t21:59:43.10-05:00", "a  b",
  "...", "a: b", "a:", "-", "@x", "`x", "%x", "!x", "&x", "*x", "|", ">", "?x", ":x", "[x", "{x", ",x", "#x", "12:30:00.5", "1__0",
  "0.1_0", "TRUE", "nULL",
];
const QUOTED = [`"a"`, `"a\\"b"`, `"\\u00e9\\x41\\t"`, `"tab\\tx"`, `'it''s'`, `''`, `""`, `"a # b"`, `'#'`, `"\\\\"`, `"line\\nbreak"`, `'1.0'`, `"yes"`, `"a: b"`];
const ODD_QUOTED = [`"\\q"`, `"unterminated`, `'x' y`, `"a"b`];
const KEYS = ["a", "b", "c", "d", "e", "tasks", "seeds", "eval_kwargs", "x y", "a.b", "a-b", "k:v", "ü", "toString", `"q k"`, `'s k'`, `"0"`, `'12'`, "k"];
const ODD_KEYS = ["1", "yes", "null", "<<", "__proto__", "0", "a #b", "?x", "-a", `"__proto__"`, "~", "[a]"];
const DAMAGE = [":", "-", "#", " ", "  ", "[", "]", "{", "}", ",", "'", '"', "&a ", "*a", "\t", "\r", "!", "|", "? ", "\n", "- ", ": ", "---\n", "%"];

function randomDocument(random: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const chance = (p: number) => random() < p;
  const comment = () => (chance(0.1) ? `  # ${pick(PLAIN)}` : "");
  const scalar = () => (chance(0.75) ? pick(chance(0.9) ? PLAIN : ODD_PLAIN) : pick(chance(0.9) ? QUOTED : ODD_QUOTED));
  /** Keys for one mapping: mostly distinct, sometimes repeated or odd. */
  const keys = () => {
    const used = new Set<string>();
    return () => {
      let key = pick(chance(0.95) ? KEYS : ODD_KEYS);
      for (let i = 0; i < 5 && used.has(key) && chance(0.97); i++) key = pick(KEYS);
      used.add(key);
      return key;
    };
  };

  const flow = (depth: number, multiLine: boolean, indent: string): string => {
    const newline = () => `${chance(0.2) ? "  # c" : ""}\n${chance(0.1) ? "\n" : ""}${indent}${" ".repeat(1 + Math.floor(random() * 3))}`;
    const sep = () => (multiLine && chance(0.3) ? newline() : chance(0.5) ? " " : "");
    const n = Math.floor(random() * 4);
    const items: string[] = [];
    const isMap = depth === 0 && indent === "" ? true : chance(0.5);
    const key = keys();
    for (let i = 0; i < n; i++) {
      const value = depth < 3 && chance(0.25) ? flow(depth + 1, multiLine, indent) : scalar();
      items.push(isMap ? `${key()}:${chance(0.9) ? " " : ""}${value}` : value);
    }
    const body = items.map((item) => `${sep()}${item}`).join(",") + (chance(0.1) ? "," : "") + sep();
    return isMap ? `{${body}}` : `[${body}]`;
  };

  const lines: string[] = [];
  const inline = (indent: string) => (chance(0.15) ? flow(0, chance(0.3), indent) : scalar()) + (chance(0.05) ? "   " : "") + comment();

  const block = (indent: string, depth: number, asSeq: boolean, firstPrefix?: string): void => {
    const step = " ".repeat(1 + Math.floor(random() * 3));
    const n = 1 + Math.floor(random() * 4);
    const key = keys();
    for (let i = 0; i < n; i++) {
      const prefix = i === 0 && firstPrefix !== undefined ? firstPrefix : indent;
      if (chance(0.05)) lines.push(chance(0.5) ? "" : `${indent}# note`);
      const head = asSeq ? `${prefix}- ` : `${prefix}${key()}${chance(0.05) ? "  " : ""}:`;
      const r = random();
      if (depth < 4 && r < 0.25) {
        // Nested block on the next lines (a list may sit at its key's column).
        lines.push(asSeq ? `${prefix}-${comment()}` : `${head}${comment()}`);
        const nestedSeq = chance(0.5);
        block(!asSeq && nestedSeq && chance(0.4) ? indent : indent + step, depth + 1, nestedSeq);
      } else if (asSeq && depth < 4 && r < 0.45) {
        // A mapping that starts on the dash line.
        block(`${indent}  `, depth + 1, false, `${prefix}- `);
      } else if (!asSeq && r < 0.3) {
        lines.push(`${head}${comment()}`); // empty value
      } else {
        lines.push(`${head}${asSeq ? "" : " "}${inline(indent)}`);
      }
    }
  };

  if (chance(0.1)) lines.push("---");
  if (chance(0.08)) lines.push(flow(0, true, ""));
  else block("", 0, false);
  let text = lines.join("\n") + (chance(0.9) ? "\n" : "");
  // Damage: one small edit somewhere, to reach the reader's give-up paths and error cases.
  if (chance(0.1)) {
    const all = text.split("\n");
    const i = Math.floor(random() * all.length);
    all[i] = chance(0.5) ? ` ${all[i]}` : all[i]!.replace(/^ /, "");
    text = all.join("\n");
  } else if (chance(0.3)) {
    const at = Math.floor(random() * (text.length + 1));
    const cut = chance(0.4) ? 1 + Math.floor(random() * 2) : 0;
    text = text.slice(0, at) + (chance(0.8) ? pick(DAMAGE) : "") + text.slice(at + cut);
  }
  return text;
}

describe("random documents", () => {
  const runs = Number(process.env.SIMPLE_YAML_FUZZ_RUNS ?? 1500);
  it(`${runs} seeded random documents: the simple reader agrees or gives up`, () => {
    let acceptedCount = 0;
    for (let seed = 1; seed <= runs; seed++) {
      const text = randomDocument(mulberry32(seed));
      try {
        if (agrees(text)) acceptedCount++;
      } catch (error) {
        throw new Error(`seed ${seed}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    // The cases must exercise the simple reader, not just its give-up paths.
    expect(acceptedCount).toBeGreaterThan(runs / 5);
  });
});

it("a full-reader error stays a ConfigError whichever reader tried first", () => {
  expect(() => readWithYamlPackage("f.yaml", "a: [1\n")).toThrow(ConfigError);
});
