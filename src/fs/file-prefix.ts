/**
 * Comparing a file with the bytes it should hold as they come, and copying the part that matched:
 * what the mirrors (`StreamedReconcile`) and the large projections (`ProjectionWriter`) do to write
 * a file only from its first difference on.
 */
import { openSync, readSync } from "node:fs";
import { writeFully } from "./write-fully.js";

/**
 * How many of `bytes` the file open at `fd` holds from `offset` on, read through `buffer` a chunk
 * at a time (so counted in whole chunks up to the first that differs); `ended`: the file stopped
 * before the bytes did.
 */
export function matchingPrefix(fd: number, offset: number, bytes: Uint8Array, buffer: Buffer): { readonly length: number; readonly ended: boolean } {
  let length = 0;
  while (length < bytes.length) {
    const read = readSync(fd, buffer, 0, Math.min(buffer.length, bytes.length - length), offset + length);
    if (read === 0) return { length, ended: true };
    if (!buffer.subarray(0, read).equals(bytes.subarray(length, length + read))) return { length, ended: false };
    length += read;
  }
  return { length, ended: false };
}

/** A new file at `path` holding the first `length` bytes of the file open at `fd` (copied through `buffer`); returns its descriptor, open for writing on. */
export function copyPrefix(fd: number, length: number, path: string, buffer: Buffer): number {
  const copy = openSync(path, "w");
  for (let at = 0; at < length; ) {
    const read = readSync(fd, buffer, 0, Math.min(buffer.length, length - at), at);
    writeFully(copy, buffer.subarray(0, read));
    at += read;
  }
  return copy;
}
