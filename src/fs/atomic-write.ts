/** Files users read are replaced whole: written to a temp file, then renamed over the target. */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

let counter = 0;

/**
 * Writes `content` to `path` atomically. The temp file goes beside the target, or into `tempDir`
 * (same filesystem) when given, so a writer can clear leftovers of a killed process in one place.
 */
export function writeFileAtomic(path: string, content: string, tempDir?: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = join(tempDir ?? dirname(path), `${basename(path)}.tmp-${process.pid}-${counter++}`);
  writeFileSync(temp, content);
  renameSync(temp, path);
}
