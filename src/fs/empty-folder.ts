/**
 * Makes `dir` an empty folder, keeping it when it already is one: a writer clears its temp folder
 * when it opens, and the recursive removal it used (then a new folder) showed in a cold replay
 * where the folder was empty, as it is after every clean exit (docs/performance.md, ledger).
 */
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { childPath } from "./child-path.js";

export function emptyFolder(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
    // No folder there, or something else in its place.
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    return;
  }
  for (const name of names) rmSync(childPath(dir, name), { recursive: true, force: true });
}
