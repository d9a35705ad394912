/**
 * better-sqlite3's compiled addon by its path, when it is where a build puts it (`build/Release`).
 * Left to find it at the first open, better-sqlite3 asks the `bindings` package, which tries one
 * path after another: passing the path shortens a command's first open (docs/performance.md:
 * ledger, 514b50e). Undefined (a build elsewhere) leaves it to that search.
 */
import { createRequire } from "node:module";

export function sqliteAddonPath(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve("better-sqlite3/build/Release/better_sqlite3.node");
  } catch {
    return undefined;
  }
}
