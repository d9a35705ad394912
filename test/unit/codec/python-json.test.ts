/**
 * canonicalJson must equal Python's `json.dumps(obj, sort_keys=True)` byte for byte: job ids are
 * SHA-256 of that text (golden ids: test/unit/config/job-id.test.ts). Every expected string below
 * was produced by CPython 3.11 (`json.dumps`, `repr(float)`) and pasted in literally.
 */
import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  PyFloat,
  floatReprByDigits,
  pythonFloatRepr,
  pythonJsonString,
  pythonNumberRepr,
  pythonPrettyJson,
  pythonStr,
} from "../../../src/codec/python-json.js";

describe("canonicalJson: separators and key order", () => {
  it("uses ', ' and ': ' separators and sorts keys", () => {
    expect(canonicalJson({ b: 1, a: 2, c: "x" })).toBe(String.raw`{"a": 2, "b": 1, "c": "x"}`);
  });

  it("sorts keys at every depth, inside lists too, and prints empty containers", () => {
    const value = { z: { b: [3, { y: null, x: true }], a: false }, a: [], m: {} };
    expect(canonicalJson(value)).toBe(String.raw`{"a": [], "m": {}, "z": {"a": false, "b": [3, {"x": true, "y": null}]}}`);
  });

  it("sorts keys by code point (astral characters after U+FF61, digits as text) and escapes them", () => {
    const value = { "\uff61": 1, "\u{1F600}": 2, z: 3, A: 4, "\u00e9": 5, _: 6, a: 7, B: 8, "10": 9, "9": 10 };
    expect(canonicalJson(value)).toBe(
      String.raw`{"10": 9, "9": 10, "A": 4, "B": 8, "_": 6, "a": 7, "z": 3, "\u00e9": 5, "\uff61": 1, "\ud83d\ude00": 2}`,
    );
  });

  it("does not depend on insertion order", () => {
    expect(canonicalJson({ b: { d: 1, c: 2 }, a: 0 })).toBe(canonicalJson({ a: 0, b: { c: 2, d: 1 } }));
  });
});

describe("canonicalJson: strings (ensure_ascii)", () => {
  it("escapes non-ASCII as \\uXXXX, astral characters as surrogate pairs, and control characters", () => {
    const value = [
      "h\u00e9llo",
      "\u65e5\u672c",
      "\u{1F600}",
      "\u{1F468}\u200d\u{1F469}",
      "\x00\x01\x1f",
      "tab\t nl\n cr\r bs\b ff\f",
      'quote" back\\ slash/',
      "\u2028\u2029",
      "~ !",
      "\ufeff",
    ];
    expect(canonicalJson(value)).toBe(
      String.raw`["h\u00e9llo", "\u65e5\u672c", "\ud83d\ude00", "\ud83d\udc68\u200d\ud83d\udc69", "\u0000\u0001\u001f", "tab\t nl\n cr\r bs\b ff\f", "quote\" back\\ slash/", "\u2028\u2029", "~ !", "\ufeff"]`,
    );
  });

  it("escapes DEL (0x7f) like Python: json.dumps('a\\x7fb') == '\"a\\\\u007fb\"'", () => {
    expect(pythonJsonString("a\x7fb")).toBe(String.raw`"a\u007fb"`);
  });

  it("keeps printable ASCII as is", () => {
    const printable = Array.from({ length: 0x7e - 0x20 + 1 }, (_, i) => String.fromCharCode(0x20 + i))
      .join("")
      .replace(/["\\]/g, "");
    expect(pythonJsonString(printable)).toBe(`"${printable}"`);
  });
});

describe("canonicalJson: numbers, booleans, null", () => {
  it("prints ints, bools and null like Python", () => {
    expect(canonicalJson([null, true, false, 0, -7, 9007199254740992, 18446744073709551616n])).toBe(
      "[null, true, false, 0, -7, 9007199254740992, 18446744073709551616]",
    );
  });

  it("prints floats in Python repr, integral floats only when wrapped in PyFloat", () => {
    const value = [
      new PyFloat(1),
      0.1,
      1e-5,
      new PyFloat(1e16),
      new PyFloat(1e16 - 2),
      123456789.123,
      new PyFloat(-0),
      NaN,
      Infinity,
      -Infinity,
      2.5,
      new PyFloat(-1),
      new PyFloat(1e22),
    ];
    expect(canonicalJson(value)).toBe(
      "[1.0, 0.1, 1e-05, 1e+16, 9999999999999998.0, 123456789.123, -0.0, NaN, Infinity, -Infinity, 2.5, -1.0, 1e+22]",
    );
  });

  it("treats an integral plain number as a Python int", () => {
    expect(canonicalJson({ a: 1, b: new PyFloat(1) })).toBe(`{"a": 1, "b": 1.0}`);
    expect(pythonNumberRepr(3)).toBe("3");
    expect(pythonNumberRepr(3.5)).toBe("3.5");
  });

  it("serializes undefined as null (Python None)", () => {
    expect(canonicalJson([undefined])).toBe("[null]");
  });
});

describe("canonicalJson: nested kwargs and default=str", () => {
  it("serializes a realistic kwargs payload", () => {
    const value = {
      trainer_kwargs: { num_steps: 3, threads: 4, temperature: 0.7, verbose: false },
      optimizer_kwargs: [{ lr: new PyFloat(1) }, { lr: 0.5, memory: { size: 10, policy: "fifo" } }],
      eval_kwargs: { objective_mode: "pareto", weights: [0.5, 0.25], label: "\u00fcber" },
    };
    expect(canonicalJson(value)).toBe(
      String.raw`{"eval_kwargs": {"label": "\u00fcber", "objective_mode": "pareto", "weights": [0.5, 0.25]}, "optimizer_kwargs": [{"lr": 1.0}, {"lr": 0.5, "memory": {"policy": "fifo", "size": 10}}], "trainer_kwargs": {"num_steps": 3, "temperature": 0.7, "threads": 4, "verbose": false}}`,
    );
  });

  it("str()s a Date like Python's str(datetime)", () => {
    expect(canonicalJson(new Date(Date.UTC(2024, 0, 1, 12, 30, 0)))).toBe(`"2024-01-01 12:30:00"`);
  });

  it("str()s a Date with milliseconds like Python (six fractional digits)", () => {
    // python3: json.dumps(str(datetime(2024, 1, 1, 12, 30, 0, 123000))) == '"2024-01-01 12:30:00.123000"'
    expect(canonicalJson(new Date(Date.UTC(2024, 0, 1, 12, 30, 0, 123)))).toBe(`"2024-01-01 12:30:00.123000"`);
  });
});

describe("pythonFloatRepr", () => {
  // [expression, value, repr(float(value)) from CPython 3.11]
  const table: ReadonlyArray<readonly [string, number, string]> = [
    ["0.1", 0.1, "0.1"],
    ["0.2", 0.2, "0.2"],
    ["0.1 + 0.2", 0.1 + 0.2, "0.30000000000000004"],
    ["1 / 3", 1 / 3, "0.3333333333333333"],
    ["2 / 3", 2 / 3, "0.6666666666666666"],
    ["-1 / 3", -1 / 3, "-0.3333333333333333"],
    ["0.5", 0.5, "0.5"],
    ["1.5", 1.5, "1.5"],
    ["-2.5", -2.5, "-2.5"],
    ["100.25", 100.25, "100.25"],
    ["1e-05", 1e-5, "1e-05"],
    ["0.0001", 0.0001, "0.0001"],
    ["0.001", 0.001, "0.001"],
    ["0.00012345", 0.00012345, "0.00012345"],
    ["1.2345e-05", 1.2345e-5, "1.2345e-05"],
    ["1e-07", 1e-7, "1e-07"],
    ["5e-324", 5e-324, "5e-324"],
    ["2.2250738585072014e-308", 2.2250738585072014e-308, "2.2250738585072014e-308"],
    ["1.7976931348623157e+308", 1.7976931348623157e308, "1.7976931348623157e+308"],
    ["1e+16", 1e16, "1e+16"],
    ["1e16 - 2", 1e16 - 2, "9999999999999998.0"],
    ["1e16 + 2", 1e16 + 2, "1.0000000000000002e+16"],
    ["1e15", 1e15, "1000000000000000.0"],
    ["123456789012345.6", 123456789012345.6, "123456789012345.6"],
    ["1234567890123456.8", 1234567890123456.8, "1234567890123456.8"],
    ["12345678901234567.0", 12345678901234568, "1.2345678901234568e+16"],
    ["1e+22", 1e22, "1e+22"],
    ["1.5e+300", 1.5e300, "1.5e+300"],
    ["-1.5e-300", -1.5e-300, "-1.5e-300"],
    ["2 ** 53", 2 ** 53, "9007199254740992.0"],
    ["2 ** 53 + 2", 2 ** 53 + 2, "9007199254740994.0"],
    ["2 ** -20", 2 ** -20, "9.5367431640625e-07"],
    ["123456789.123", 123456789.123, "123456789.123"],
    ["3.141592653589793", 3.141592653589793, "3.141592653589793"],
    ["2.718281828459045", 2.718281828459045, "2.718281828459045"],
    ["6.02e+23", 6.02e23, "6.02e+23"],
    ["-6.626e-34", -6.626e-34, "-6.626e-34"],
    ["9.999999999999999e+22", 9.999999999999999e22, "1e+23"],
    ["0.3", 0.3, "0.3"],
    ["1e+100", 1e100, "1e+100"],
    ["1e21", 1e21, "1e+21"],
    ["1e-4 * 3", 1e-4 * 3, "0.00030000000000000003"],
    ["0.1 * 3", 0.1 * 3, "0.30000000000000004"],
    ["100.0", 100, "100.0"],
    ["7.0", 7, "7.0"],
    ["-3.0", -3, "-3.0"],
    ["1e-5 - 1e-20", 1e-5 - 1e-20, "9.99999999999999e-06"],
    ["0.0", 0, "0.0"],
    ["-0.0", -0, "-0.0"],
    ["nan", NaN, "NaN"],
    ["inf", Infinity, "Infinity"],
    ["-inf", -Infinity, "-Infinity"],
  ];

  it.each(table)("repr(%s)", (_expr, value, expected) => {
    expect(pythonFloatRepr(value)).toBe(expected);
    expect(floatReprByDigits(value)).toBe(expected);
  });

  it("writes what the digit-by-digit route writes for 20,000 random doubles of every magnitude", () => {
    let state = 7;
    const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 20_000; i++) {
      const value = (next() - 0.5) * 10 ** Math.floor(next() * 44 - 22);
      const rounded = i % 4 === 0 ? Math.round(value) : value;
      expect(pythonFloatRepr(rounded), String(rounded)).toBe(floatReprByDigits(rounded));
    }
    for (const edge of [1e-4, -1e-4, 1e-4 * (1 - 2 ** -52), 1e16, 1e16 - 2, -(1e16 - 2), 2 ** 53, 0.1, -7]) expect(pythonFloatRepr(edge)).toBe(floatReprByDigits(edge));
  });
});

describe("pythonStr", () => {
  it("matches Python str() of scalars", () => {
    expect([true, false, null, 1.5, 2, new PyFloat(1), "text"].map(pythonStr)).toEqual(["True", "False", "None", "1.5", "2", "1.0", "text"]);
  });
});

describe("pythonPrettyJson", () => {
  // json.dumps(value, indent=2, ensure_ascii=...) of the same values, by CPython 3.11.
  const nested = { a: 1, b: [1, 2.5, "x", null, true], c: {}, d: [], e: { f: [[], {}], g: "\u00e9\n\t\"\\" } };
  const floats = [new PyFloat(1), 0.1, 1e21, 1e-7, 1 / 3, new PyFloat(-0), Number.NaN, Number.POSITIVE_INFINITY];
  const unicode = { "\u65e5\u672c": "\ud83d\ude00 \u007f \u0000" };
  const cases: [string, unknown, boolean, string][] = [
    ["nested", nested, false, "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2.5,\n    \"x\",\n    null,\n    true\n  ],\n  \"c\": {},\n  \"d\": [],\n  \"e\": {\n    \"f\": [\n      [],\n      {}\n    ],\n    \"g\": \"\u00e9\\n\\t\\\"\\\\\"\n  }\n}"],
    ["nested", nested, true, "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2.5,\n    \"x\",\n    null,\n    true\n  ],\n  \"c\": {},\n  \"d\": [],\n  \"e\": {\n    \"f\": [\n      [],\n      {}\n    ],\n    \"g\": \"\\u00e9\\n\\t\\\"\\\\\"\n  }\n}"],
    ["floats", floats, false, "[\n  1.0,\n  0.1,\n  1e+21,\n  1e-07,\n  0.3333333333333333,\n  -0.0,\n  NaN,\n  Infinity\n]"],
    ["unicode", unicode, false, "{\n  \"\u65e5\u672c\": \"\ud83d\ude00 \u007f \\u0000\"\n}"],
    ["unicode", unicode, true, "{\n  \"\\u65e5\\u672c\": \"\\ud83d\\ude00 \\u007f \\u0000\"\n}"],
  ];
  for (const [name, value, ensureAscii, python] of cases) {
    it(`matches Python's json.dumps(indent=2, ensure_ascii=${ensureAscii ? "True" : "False"}) of ${name}`, () => {
      expect(pythonPrettyJson(value, { ensureAscii })).toBe(python);
    });
  }

  it("leaves out undefined entries, renders an object of only those as {}, and indents a nested value by its depth", () => {
    expect(pythonPrettyJson({ a: undefined, b: [undefined] })).toBe('{\n  "b": [\n    null\n  ]\n}');
    expect(pythonPrettyJson({ a: undefined })).toBe("{}");
    expect(pythonPrettyJson({ k: [1] }, { depth: 1 })).toBe('{\n    "k": [\n      1\n    ]\n  }');
  });
});
