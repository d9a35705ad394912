/**
 * Reads a config file the way the Python original does (PyYAML `safe_load`, JSON fallback) and
 * keeps what a JS object would lose: integral floats stay `PyFloat` (for job-id hashing) and every
 * key path can be mapped back to its line for error messages.
 */
import { readFileSync } from "node:fs";
import YAML, { LineCounter, type ScalarTag } from "yaml";
import { ConfigError } from "./config-error.js";
import { PyFloat } from "../codec/python-json.js";

export interface ConfigSource {
  readonly path: string;
  /** The parsed document; integral floats are `PyFloat`. */
  readonly data: unknown;
  /** 1-based line of the deepest node that exists along `keyPath`, when the source is YAML. */
  lineOf(keyPath: readonly PropertyKey[]): number | undefined;
}

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

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : code === "EACCES" ? "permission denied" : String(code ?? error);
    throw new ConfigError({ problems: [`${path}: cannot read config file (${why}); pass an existing YAML or JSON file with --config`] });
  }
}

export function parseConfigText(path: string, text: string): ConfigSource {
  const lineCounter = new LineCounter();
  const doc = YAML.parseDocument(text, {
    version: "1.1",
    merge: true,
    lineCounter,
    prettyErrors: false,
    customTags: (tags) => pyyamlTags(tags) as typeof tags,
  });
  if (doc.errors.length === 0) {
    const data = doc.toJS({ maxAliasCount: 1000 }) ?? {};
    return {
      path,
      data,
      lineOf(keyPath) {
        for (let n = keyPath.length; n >= 0; n--) {
          const node = doc.getIn(keyPath.slice(0, n) as unknown[], true) as { range?: [number, number, number] } | undefined;
          if (node?.range) return lineCounter.linePos(node.range[0]).line;
        }
        return undefined;
      },
    };
  }
  // Like the original: what YAML rejects may still be JSON.
  try {
    const data: unknown = JSON.parse(text);
    return { path, data, lineOf: () => undefined };
  } catch {
    const first = doc.errors[0]!;
    const pos = lineCounter.linePos(first.pos[0]);
    const where = `${path}:${pos.line}:${pos.col}`;
    const what = first.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    throw new ConfigError({ problems: [`${where}: invalid YAML: ${what}; fix the syntax at that line`] });
  }
}

export function readConfigFile(path: string): ConfigSource {
  return parseConfigText(path, readText(path));
}
