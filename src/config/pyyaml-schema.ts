/**
 * How config YAML is read: PyYAML `safe_load` rules (YAML 1.1 resolvers, merge keys) on top of the
 * `yaml` package, with integral floats kept as `PyFloat` (job ids hash them).
 */
import type { DocumentOptions, ParseOptions, ScalarTag, SchemaOptions, ToJSOptions } from "yaml";
import { PyFloat } from "./python-json.js";

const floatValue = (text: string): number | PyFloat => {
  const lower = text.toLowerCase();
  const value = lower.endsWith(".inf")
    ? (lower.startsWith("-") ? -Infinity : Infinity)
    : lower === ".nan"
      ? NaN
      : Number(text.replace(/_/g, ""));
  return Number.isInteger(value) ? new PyFloat(value) : value;
};

/** PyYAML's YAML 1.1 resolvers differ from the yaml package's: no `y`/`n` booleans, floats need a dot. */
function pyyamlTags(tags: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const raw of tags) {
    const tag = raw as ScalarTag;
    if (tag.tag === "tag:yaml.org,2002:timestamp") continue; // Python str()s dates anyway; keep the text.
    if (tag.tag === "tag:yaml.org,2002:bool") {
      const truthy = String(tag.test).includes("rue");
      out.push({
        ...tag,
        test: truthy ? /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/ : /^(?:no|No|NO|false|False|FALSE|off|Off|OFF)$/,
      });
      continue;
    }
    if (tag.tag === "tag:yaml.org,2002:float" && tag.format !== "TIME") {
      const test =
        tag.format === "EXP"
          ? /^[-+]?(?:[0-9][0-9_]*\.[0-9_]*|\.[0-9][0-9_]*)[eE][-+][0-9]+$/
          : String(tag.test).includes("inf")
            ? tag.test
            : /^[-+]?(?:[0-9][0-9_]*\.[0-9_]*|\.[0-9][0-9_]*)$/;
      out.push({ ...tag, test, resolve: floatValue });
      continue;
    }
    out.push(tag);
  }
  return out;
}

/**
 * Options for `Parser`/`Composer`. Duplicate keys are checked by `duplicate-keys.ts` in linear
 * time: the package's own check compares every key with every earlier one.
 */
export const PYYAML_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: "1.1",
  merge: true,
  uniqueKeys: false,
  prettyErrors: false,
  customTags: (tags) => pyyamlTags(tags) as typeof tags,
};

/**
 * `toJS` options. Every alias is already replaced by the node it names (`alias-expansion.ts`
 * bounds that expansion), so the package's own alias counting has nothing left to count.
 */
export const PYYAML_TO_JS: ToJSOptions = { maxAliasCount: -1 };
