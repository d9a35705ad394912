/** Files users read are replaced whole: written to a temp file beside them, then renamed over. */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

let counter = 0;

export function writeFileAtomic(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.tmp-${process.pid}-${counter++}`;
  writeFileSync(temp, content);
  renameSync(temp, path);
}
