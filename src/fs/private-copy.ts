/**
 * Copies of files in a temporary folder of this process's own, for reading what cannot be read in
 * place (a SQLite log on a read-only file system), removed by `remove`.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

export interface PrivateCopy {
  /** Where the first file's copy is. */
  readonly path: string;
  readonly remove: () => void;
}

/** Copies `file` and those of `companions` that exist, side by side under their own names. */
export function privateCopy(file: string, companions: readonly string[]): PrivateCopy {
  const dir = mkdtempSync(join(tmpdir(), "trace-bench-copy-"));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    for (const source of [file, ...companions.filter((c) => existsSync(c))]) copyFileSync(source, join(dir, basename(source)));
  } catch (error) {
    remove();
    throw error;
  }
  return { path: join(dir, basename(file)), remove };
}
