/**
 * Reads a config file the way the Python original does (PyYAML `safe_load`, JSON fallback) and
 * keeps what a JS object would lose: integral floats stay `PyFloat` (for job-id hashing) and every
 * key path can be mapped back to its line for error messages.
 *
 * Plain configs go through `simple-yaml.ts` (linear time, little memory); anything else through
 * `yaml-package-reader.ts`. Either way hostile input ends in a `ConfigError`, never a crash.
 */
import { readFileSync } from "node:fs";
import { ConfigError } from "./config-error.js";
import { readSimpleYaml } from "./simple-yaml.js";
import { readWithYamlPackage } from "./yaml-package-reader.js";

export interface ConfigSource {
  readonly path: string;
  /** The parsed document; integral floats are `PyFloat`. */
  readonly data: unknown;
  /** 1-based line of the deepest node that exists along `keyPath`, when the source is YAML. */
  lineOf(keyPath: readonly PropertyKey[]): number | undefined;
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

/** Parses config text; the same values and lines whichever reader does it. Throws `ConfigError`. */
export function parseConfigText(path: string, text: string): ConfigSource {
  const simple = readSimpleYaml(text);
  if (simple !== undefined) return { path, data: simple.data, lineOf: simple.lineOf };
  return readWithYamlPackage(path, text);
}

export function readConfigFile(path: string): ConfigSource {
  return parseConfigText(path, readText(path));
}
