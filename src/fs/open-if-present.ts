/** A file's descriptor, opened with `flags`; null when there is no file (ENOENT). */
import { openSync } from "node:fs";

export function openIfPresent(path: string, flags: string): number | null {
  try {
    return openSync(path, flags);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}
