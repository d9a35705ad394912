/**
 * `pythonSafeDump` against PyYAML itself: every value below is also dumped by python3's
 * `yaml.safe_dump(value, sort_keys=False)` (PyYAML must be installed: `apt-get install
 * python3-yaml`; CI installs it), and the bytes must be equal.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { PyFloat } from "../../../src/codec/python-json.js";
import { pythonSafeDump } from "../../../src/codec/python-yaml.js";
import { randomValue, tricky } from "../../support/yaml-values.js";

/** PyYAML's dumps of `values`, in one python3 process. A float JSON cannot tell (a `PyFloat`, NaN, infinities) crosses as `{"__float__": "repr"}`. */
function pyyamlDumps(values: readonly unknown[]): string[] {
  const script = [
    "import json, sys, yaml",
    "def hook(o):",
    "    return float(o['__float__']) if list(o) == ['__float__'] else o",
    "values = json.loads(sys.stdin.read(), object_hook=hook)",
    "sys.stdout.write(json.dumps([yaml.safe_dump(v, sort_keys=False) for v in values]))",
  ].join("\n");
  const input = JSON.stringify(values.map(transported));
  return JSON.parse(execFileSync("python3", ["-c", script], { input, encoding: "utf8", maxBuffer: 64 << 20 })) as string[];
}

function transported(value: unknown): unknown {
  if (value instanceof PyFloat) return { __float__: String(value.value) };
  if (typeof value === "number" && !Number.isFinite(value)) return { __float__: String(value) };
  if (Array.isArray(value)) return value.map(transported);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, transported(item)]));
  return value;
}

describe("pythonSafeDump", () => {
  it("writes what PyYAML's safe_dump writes for values that change a scalar's style, layout or escaping", () => {
    const names = Object.keys(tricky);
    const expected = pyyamlDumps(names.map((name) => tricky[name]));
    for (const [i, name] of names.entries()) expect(pythonSafeDump(tricky[name]), name).toBe(expected[i]);
  });

  it("writes what PyYAML's safe_dump writes for 2,000 seeded random values", () => {
    const values = Array.from({ length: 2_000 }, (_, seed) => randomValue(seed + 1));
    const expected = pyyamlDumps(values);
    const differing = values.map((value, i) => ({ seed: i + 1, ours: pythonSafeDump(value), theirs: expected[i] })).filter((c) => c.ours !== c.theirs);
    expect(differing.slice(0, 3)).toEqual([]);
  });
});
