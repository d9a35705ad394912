/**
 * The installed package's root: the first folder above this module with a package.json (the
 * checkout when run from source, the same folder from dist/, node_modules/trace-bench installed).
 * Shipped files that are not compiled (configs, benchmarks, Python workers) are found from it.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let found: string | undefined;

export function packageRoot(): string {
  if (found !== undefined) return found;
  const start = dirname(fileURLToPath(import.meta.url));
  let dir = start;
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`trace-bench: cannot find the package root above ${start}`);
    dir = parent;
  }
  found = dir;
  return dir;
}
