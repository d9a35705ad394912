/**
 * How config YAML is read: PyYAML `safe_load` rules (YAML 1.1 resolvers, merge keys) on top of the
 * `yaml` package, with integral floats kept as `PyFloat` (job ids hash them). Both config readers
 * (the `yaml` package and the simple reader) resolve scalars through these same tags.
 */
import YAML, { type DocumentOptions, type ParseOptions, type SchemaOptions, type ScalarTag, type ToJSOptions } from "yaml";
import { PyFloat } from "../codec/python-json.js";

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

let template: YAML.Document | undefined;
const documentTemplate = (): YAML.Document => (template ??= new YAML.Document(undefined, PYYAML_OPTIONS));

/**
 * A one-line plain (unquoted) scalar resolved as the composer would (first default tag whose test
 * matches, else a string). `undefined` when that needs more than a plain value: a key that is not
 * a string (numbers, booleans, null, `<<`) or a value the tag rejects.
 */
export function resolvePlainScalar(text: string, atKey: boolean): { readonly value: unknown } | undefined {
  const doc = documentTemplate();
  const tag = doc.schema.tags.find((t) => (t.default === true || (atKey && t.default === "key")) && t.test?.test(text)) as ScalarTag | undefined;
  if (tag === undefined) return { value: text };
  if (atKey || tag.resolve === undefined) return undefined;
  let failed = false;
  const resolved = tag.resolve(text, () => (failed = true), doc.options);
  // Some tags (booleans, null) resolve to a Scalar node, as the composer allows.
  const value = YAML.isScalar(resolved) ? resolved.value : resolved;
  return failed || YAML.isNode(value) || typeof value === "symbol" ? undefined : { value };
}
