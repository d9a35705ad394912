/**
 * The lines of a file, read in chunks of a fixed size: a mirror of a big run is hundreds of
 * megabytes, and one line (a run's start, with its matrix) can be megabytes on its own.
 */
import { closeSync, openSync, readSync } from "node:fs";

const CHUNK_BYTES = 1 << 20;
const NEWLINE = 0x0a;

/**
 * Calls `visit` with each line of the file at `path` (without its newline) and its number from 1;
 * `complete` is false for a last line that no newline ends (a write cut short). Throws as
 * `openSync` does.
 */
export function forEachLine(path: string, visit: (line: string, number: number, complete: boolean) => void): void {
  const fd = openSync(path, "r");
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let pending: Buffer[] = [];
    let number = 0;
    for (let read = readSync(fd, chunk, 0, CHUNK_BYTES, null); read > 0; read = readSync(fd, chunk, 0, CHUNK_BYTES, null)) {
      const view = chunk.subarray(0, read);
      let start = 0;
      for (let end = view.indexOf(NEWLINE, start); end !== -1; end = view.indexOf(NEWLINE, start)) {
        const line = pending.length === 0 ? view.subarray(start, end) : Buffer.concat([...pending, view.subarray(start, end)]);
        pending = [];
        visit(line.toString("utf8"), ++number, true);
        start = end + 1;
      }
      // The chunk is reused by the next read: what is left of it is copied.
      if (start < read) pending.push(Buffer.from(view.subarray(start)));
    }
    if (pending.length > 0) visit(Buffer.concat(pending).toString("utf8"), ++number, false);
  } finally {
    closeSync(fd);
  }
}
