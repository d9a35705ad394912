/**
 * `pythonSafeDump`: what a Python reader would load, recorded PyYAML bytes, and a round trip through
 * trace-bench's own config reader. The byte-for-byte comparison with PyYAML itself (a python3
 * process) is in test/int/codec/python-yaml-pyyaml.test.ts.
 */
import { describe, expect, it } from "vitest";
import { PyFloat } from "../../../src/codec/python-json.js";
import { pythonSafeDump } from "../../../src/codec/python-yaml.js";
import { parseConfigText } from "../../../src/config/config-file.js";
import { randomValue, tricky } from "../../support/yaml-values.js";

describe("pythonSafeDump", () => {
  it("quotes what a Python reader would load as another type, and writes code as PyYAML does (recorded from PyYAML 6.0)", () => {
    expect(pythonSafeDump({ s: "yes", d: "2002-12-14", t: "12:30", n: "", f: 1e-5, p: new PyFloat(1) })).toBe("s: 'yes'\nd: '2002-12-14'\nt: '12:30'\nn: ''\nf: 1.0e-05\np: 1.0\n");
    expect(pythonSafeDump({ value: "function emit(value) {\n  return value;\n}" })).toBe('value: "function emit(value) {\\n  return value;\\n}"\n');
    expect(pythonSafeDump({ value: "a\nb" })).toBe("value: 'a\n\n  b'\n");
  });

  it("writes what trace-bench's own config reader (PyYAML's rules) reads back as the same values: a run resumes from its config snapshot", () => {
    // The reader keeps a float as `PyFloat` only when it is integral; an integral number of 1e21 or
    // more is written as a float (as JSON writes it), and read back as one.
    const asRead = (value: unknown): unknown => {
      if (value instanceof PyFloat && !Number.isInteger(value.value)) return value.value;
      if (typeof value === "number" && Number.isInteger(value) && Math.abs(value) >= 1e21) return new PyFloat(value);
      if (Array.isArray(value)) return value.map(asRead);
      if (value !== null && typeof value === "object" && !(value instanceof PyFloat)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, asRead(item)]));
      return value;
    };
    const mappings = [...Object.values(tricky).filter((value) => value !== null && typeof value === "object" && !Array.isArray(value)), ...Array.from({ length: 500 }, (_, seed) => randomValue(seed + 1))];
    for (const [i, value] of mappings.entries()) expect(parseConfigText(`case-${i}.yaml`, pythonSafeDump(value)).data, `case ${i}`).toEqual(asRead(value));
  });

  it("leaves out a key whose value is undefined, as JSON does, and writes a bigint as the integer it is", () => {
    expect(pythonSafeDump({ a: 1, b: undefined, c: [undefined], big: 10n ** 30n })).toBe("a: 1\nc:\n- null\nbig: 1000000000000000000000000000000\n");
  });
});
