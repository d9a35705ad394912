/** YAML values that change a scalar's style, layout or escaping: shared by the `pythonSafeDump` tests and its comparison with PyYAML. */
import { PyFloat } from "../../src/codec/python-json.js";

const words = ["alpha", "beta", "x", "longerword", "a", "reasonably", "yes", "no", "on", "null", "~", "1.5", "12:30", "0x1F", "2002-12-14", "<<", "="];

export const tricky: Record<string, unknown> = {
  "a code parameter": { kind: "NumericParamAgentModel", parameters: [{ index: 0, name: "__code_emit", trainable: true, value: "function emit(value) {\n  return value;\n}" }] },
  "code without indented lines": { value: "def f(x):\nreturn x\n" },
  "YAML 1.1 words and numbers as strings": Object.fromEntries(words.map((word, i) => [`k${i}`, word])),
  "keys that need quotes": { yes: 1, "12": 2, "a: b": 3, "#c": 4, "- d": 5, "": 6, "multi\nline": 7, " lead": 8, "é": 9 },
  "long keys": { ["k".repeat(122)]: 1, ["k".repeat(123)]: 2, ["é".repeat(130)]: 3 },
  indicators: { a: "-", b: "- a", c: "-a", d: "?", e: "? x", f: ":", g: "a:b", h: "a :b", i: "a #b", j: "a#b", k: "!tag", l: "&a", m: "*a", n: "|", o: ">", p: "%", q: "@", r: "`", s: "---", t: "...x", u: "[x]", v: "{x}", w: "a,b" },
  "spaces and breaks": { a: " lead", b: "trail ", c: "in  side", d: "\nlead", e: "trail\n", f: "a\n\nb", g: "a \nb", h: "a\n b", i: "line\nbreak", j: "'quoted'", k: '"dq"', l: "it's" },
  "special characters": { tab: "a\tb", cr: "a\r\nb", nul: "\0", bell: "\x07", del: "\x7f", nbsp: "a\xa0b", nel: "a\x85b", ls: "a\u2028b", bom: "\ufeff", e: "été", emoji: "😀 x", lone: "a\ud800b", backslash: "C:\\path", quote: 'say "hi"' },
  "folding past 80 columns": {
    plain: "word ".repeat(40).trim(),
    single: `${"word ".repeat(30)}: colon`,
    double: `${"wörd ".repeat(30)}end`,
    doubleNoSpaces: "é".repeat(200),
    doubleSpacedRuns: `${"ab  ".repeat(40)}z`,
    singleMultiline: `${"word ".repeat(25)}\n${"more ".repeat(25)}`,
    long: "x".repeat(150),
  },
  numbers: { int: 3, neg: -17, zero: 0, big: 2 ** 53, huge: 1e21, float: 1.5, small: 1e-5, tiny: 1.5e-10, e16: 1e16, e17: 1.5e17, nan: Number.NaN, inf: Infinity, ninf: -Infinity, pyfloat: new PyFloat(2), pyneg: new PyFloat(-0.5) },
  "booleans and null": { t: true, f: false, n: null, list: [null, true] },
  "empty collections": { o: {}, a: [], nested: { list: [[], {}], deep: [[{}]] } },
  "lists in lists and maps in lists": { a: [1, [2, [3, "x"]], { b: 1, c: [4, 5] }, [{ d: 1 }, { e: [] }]], f: [{ g: { h: [1] } }] },
  "a list at the root": [1, "two", { three: [3] }, [4]],
  "a string at the root": "plain",
  "a quoted string at the root": "yes",
  "a long string at the root": "word ".repeat(30).trim(),
  "an empty map at the root": {},
  "an empty list at the root": [],
};

/** Seeded nested values whose strings are drawn from the characters and words that change a scalar's style. */
export function randomValue(seed: number): unknown {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const pieces = [" ", " ", "  ", "\n", "\n\n", ":", ": ", "#", " #", "-", "- ", "'", '"', "\\", "é", "😀", "\t", "?", ",", "[", "{", "!", "&", "*", "|", ">", "%", "@", "`", ".", "---", "...", "0", "12", "1.5", "e-3", ...words];
  const string = (): string => {
    const length = Math.floor(next() ** 2 * 40);
    let text = "";
    for (let i = 0; i < length; i++) text += next() < 0.5 ? pick(words) : pick(pieces);
    return text;
  };
  const scalar = (): unknown => {
    const roll = next();
    if (roll < 0.6) return string();
    if (roll < 0.7) return Math.floor((next() - 0.5) * 1e6);
    if (roll < 0.8) return (next() - 0.5) * 10 ** Math.floor(next() * 40 - 20);
    if (roll < 0.85) return new PyFloat(Math.floor(next() * 100));
    if (roll < 0.9) return next() < 0.5;
    return null;
  };
  const value = (depth: number): unknown => {
    const roll = next();
    if (depth > 3 || roll < 0.4) return scalar();
    const size = Math.floor(next() * 5);
    if (roll < 0.7) return Array.from({ length: size }, () => value(depth + 1));
    const record: Record<string, unknown> = {};
    for (let i = 0; i < size; i++) record[next() < 0.7 ? string() : pick(words)] = value(depth + 1);
    return record;
  };
  return { root: value(0), more: value(1) };
}
