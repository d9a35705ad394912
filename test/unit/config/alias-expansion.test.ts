/**
 * Replacing aliases by their anchors' nodes before `toJS` must give the values that the `yaml`
 * package's own alias resolution gave (merge keys, re-used anchor names, aliases as keys, PyFloats).
 */
import YAML from "yaml";
import { describe, expect, it } from "vitest";
import { PYYAML_OPTIONS } from "../../../src/config/pyyaml-schema.js";
import { PyFloat } from "../../../src/codec/python-json.js";
import { readWithYamlPackage } from "../../../src/config/yaml-package-reader.js";

const typed = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (v instanceof PyFloat ? `PyFloat(${v.value})` : v));

/** What the loader produced before: the package's own alias resolution. */
const packageToJS = (text: string): unknown => YAML.parseDocument(text, { ...PYYAML_OPTIONS, uniqueKeys: true }).toJS({ maxAliasCount: 1000 });

describe("aliases expand as the yaml package expands them", () => {
  it.each([
    ["a mapping used twice", "base: &b {x: 1, y: [1, 2]}\nuse: *b\nagain: *b\n"],
    ["merge keys, single and list, with overrides", "a: &a {x: 1, y: 1}\nb: {<<: *a, y: 2}\nc:\n  <<: [*a, {z: 3}]\n  x: 9\nd:\n  x: 2\n  <<: *a\n"],
    ["a float anchor stays a PyFloat", "a: &s 1.0\nb: *s\nc: [*s, *s]\n"],
    ["a re-used anchor name means the latest anchor", "a: &x 1\nb: *x\nc: &x 2\nd: *x\n"],
    ["an alias as a key", "a: &k key\n*k : v\n"],
    ["aliases inside anchored values", "a: &a [1]\nb: &b {l: *a}\nc: [*b, *a]\n"],
    ["an anchored list inside a list", "l:\n  - &i {n: 1}\n  - *i\n"],
  ])("%s", (_name, text) => {
    expect(typed(readWithYamlPackage("a.yaml", text).data)).toBe(typed(packageToJS(text)));
  });
});
