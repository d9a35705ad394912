/**
 * `sanitizedJson` renders with `JSON.stringify` where that gives Python's bytes: it must write
 * exactly what the hand-written renderer (`pythonPrettyJson` of the sanitized value) writes, for
 * every value, at every depth.
 */
import { describe, expect, it } from "vitest";
import { PyFloat, pythonPrettyJson } from "../../../src/codec/python-json.js";
import { sanitize, sanitizedJson } from "../../../src/events/projections/artifact-format.js";

const slow = (value: unknown, depth = 0) => pythonPrettyJson(sanitize(value), { depth });

const tricky: Record<string, unknown> = {
  "floats below 1e-4": { a: 1e-5, b: -1e-7, c: 1.5e-10, list: [0.00001234, -0.00009999] },
  "floats at and above 1e-4": { a: 0.0001, b: 0.00012, c: 0.1 + 0.2, d: 1234567890123456.5, e: -2.5 },
  "integers, large and negative zero": { a: 1e21, b: 2 ** 53, c: -0, d: 0, e: 1e16, f: -17 },
  "a float alone": 1e-5,
  "a float inside a string": { note: "threshold: 1e-5", other: "x\n  0.00001" },
  "lone and paired surrogates": { lone: "a\ud800b", low: "\udfff", pair: "\ud83d\ude00", key: { "\ud800": 1 } },
  "a backslash before u": { text: "C:\\ud800\\new" },
  "control characters, DEL and line separators": { text: "\u0000\u0001\u001f\b\f\n\r\t\u007f\u2028\u2029\"\\" },
  "non-ASCII": { "clé": "été", emoji: "😀" },
  "empty and undefined": { o: {}, a: [], u: undefined, list: [undefined, null, [], {}], nested: { deep: [[{}]] } },
  "own __proto__ key": JSON.parse('{"__proto__": {"x": 1}, "after": 2}'),
  "integer-like keys": { b: 1, 10: "ten", 2: "two", a: [3] },
  "class instances, PyFloat, NaN and infinities": { when: new Date(0), score: new PyFloat(2), nan: Number.NaN, inf: -Infinity, list: [new PyFloat(0.5)] },
  "functions, symbols and bigints": { f: () => 1, s: Symbol("x"), big: 10n, list: [() => 2] },
  secrets: { api_key: "sk-1", nested: { OPENAI_API_KEY: "sk-2", prompt_tokens: 3 } },
  "a string alone": "plain",
  "undefined alone": undefined,
  "null alone": null,
};

/** A seeded generator of nested values: numbers across every magnitude, strings of any code units. */
function randomValue(seed: number): unknown {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const number = () => {
    const magnitude = 10 ** Math.floor(next() * 34 - 12);
    const value = next() * magnitude * (next() < 0.3 ? -1 : 1);
    return next() < 0.3 ? Math.round(value) : value;
  };
  const string = () => {
    let text = "";
    const length = Math.floor(next() * 8);
    for (let i = 0; i < length; i++) text += String.fromCharCode(next() < 0.7 ? 32 + Math.floor(next() * 95) : Math.floor(next() * 0x10000));
    return text;
  };
  const value = (depth: number): unknown => {
    const kind = next();
    if (depth > 3 || kind < 0.3) return number();
    if (kind < 0.5) return string();
    if (kind < 0.55) return next() < 0.5;
    if (kind < 0.6) return null;
    if (kind < 0.8) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(next() * 4) }, () => [string(), value(depth + 1)]));
  };
  return value(0);
}

describe("sanitizedJson", () => {
  for (const [name, value] of Object.entries(tricky)) {
    it(`writes what pythonPrettyJson writes: ${name}`, () => {
      for (const depth of [0, 1, 2]) expect(sanitizedJson(value, { depth })).toBe(slow(value, depth));
    });
  }

  it("writes what pythonPrettyJson writes for 3,000 random values at depths 0 to 2", () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const value = randomValue(seed);
      const depth = seed % 3;
      expect(sanitizedJson(value, { depth }), `seed ${seed}`).toBe(slow(value, depth));
    }
  });

  it("escapes everything outside ASCII when asked, as pythonPrettyJson does", () => {
    const value = { "clé": "été \ud800 😀", n: 1e-5 };
    expect(sanitizedJson(value, { ensureAscii: true })).toBe(pythonPrettyJson(sanitize(value), { ensureAscii: true }));
    expect(sanitizedJson(value, { ensureAscii: true })).toContain("\\u00e9");
  });

  it("redacts secrets and writes Python's float layout", () => {
    const text = sanitizedJson({ api_key: "sk-1", small: 1e-5, score: new PyFloat(3) });
    expect(text).toBe('{\n  "api_key": "***REDACTED***",\n  "small": 1e-05,\n  "score": 3\n}');
  });
});
