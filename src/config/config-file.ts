/**
 * Reads a config file the way the Python original does (PyYAML `safe_load`, JSON fallback) and
 * keeps what a JS object would lose: integral floats stay `PyFloat` (for job-id hashing) and every
 * key path can be mapped back to its line for error messages.
 *
 * Plain configs go through `simple-yaml.ts` (linear time, little memory); anything else through
 * `yaml-package-reader.ts`. Either way hostile input ends in a `ConfigError`, never a crash.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
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

/**
 * The largest config read. Configs that carry a data set inline (a task's eval_kwargs) are a few
 * MB; beyond this, reading and parsing one would cost more memory than a run may take.
 */
export const MAX_CONFIG_BYTES = 16 * 2 ** 20;

const cannotRead = (path: string, why: string, fix = "pass an existing YAML or JSON file with --config") =>
  new ConfigError({ problems: [`${path}: cannot read config file (${why}); ${fix}`] });

/** What a file that is not a regular one is, as users know it. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "it is a directory";
  if (stats.isFIFO()) return "it is a named pipe, not a regular file";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "it is a device, not a regular file";
  if (stats.isSocket()) return "it is a socket, not a regular file";
  return "it is not a regular file";
}

/**
 * A config file's text: only a regular file is read (a FIFO would wait for a writer forever, a
 * device such as /dev/zero never ends), and only up to `MAX_CONFIG_BYTES`. It is opened without
 * waiting (a FIFO opens at once) and checked on the open descriptor, so that what is checked is
 * what is read.
 */
function readText(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw cannotRead(path, code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : code === "EACCES" ? "permission denied" : String(code ?? error));
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw cannotRead(path, kindOf(stats), "pass a YAML or JSON file with --config");
    const tooBig = (size: string) =>
      cannotRead(path, `it is ${size}, over the ${MAX_CONFIG_BYTES / 2 ** 20} MiB a config may be`, "keep large data in files the task reads, not inline in the config");
    if (stats.size > MAX_CONFIG_BYTES) throw tooBig(`${stats.size.toLocaleString("en-US")} bytes`);
    // Read to its end, whatever fstat said: a file that grew past the cap since is refused, not cut short.
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.max(stats.size - length + 1, 1 << 16));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      length += n;
      if (length > MAX_CONFIG_BYTES) throw tooBig(`over ${MAX_CONFIG_BYTES / 2 ** 20} MiB`);
    }
    return Buffer.concat(chunks, length).toString("utf8");
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw cannotRead(path, code === "EISDIR" ? "it is a directory" : String(code ?? error));
  } finally {
    closeSync(fd);
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
