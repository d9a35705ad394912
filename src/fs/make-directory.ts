/**
 * Creates a folder unless it exists, and its parents if needed. The folder alone is tried first:
 * Node's recursive mkdir on a read-only file system reports ENOENT, where the plain one says EROFS
 * (and a user is told the wrong cause).
 */
import { mkdirSync } from "node:fs";

export function makeDirectory(dir: string): void {
  try {
    mkdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return;
    if (code !== "ENOENT") throw error;
    mkdirSync(dir, { recursive: true });
  }
}
