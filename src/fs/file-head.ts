/**
 * The first bytes of a file, read with one system call into a reused buffer: checking that a file
 * holds what a writer would write (replay's projections and job mirrors, tens of thousands of
 * small files) then costs an open, a read and a close, where `readFileSync` also asks the file's
 * size and allocates a buffer per file (docs/performance.md, ledger).
 */
import { closeSync, openSync, readSync } from "node:fs";

/** Reads that need more than this get a buffer of their own, so that one big file is not kept in memory. */
const KEPT_BYTES = 1 << 20;
let kept = Buffer.allocUnsafe(1 << 16);

/**
 * Up to `maxBytes` of the file at `path`, as a view that is valid until the next call. One read:
 * on a regular file, a read returns fewer bytes than asked only at the file's end (a caller that
 * asks one byte more than it expects tells a longer file from an equal one). Throws as `openSync`
 * does (ENOENT for no file).
 */
export function readFileHead(path: string, maxBytes: number): Buffer {
  const buffer = maxBytes <= kept.length ? kept : maxBytes <= KEPT_BYTES ? (kept = Buffer.allocUnsafe(KEPT_BYTES)) : Buffer.allocUnsafe(maxBytes);
  const fd = openSync(path, "r");
  try {
    return buffer.subarray(0, readSync(fd, buffer, 0, maxBytes, 0));
  } finally {
    closeSync(fd);
  }
}

/** Whether the file at `path` holds exactly `expected`, byte for byte. */
export function fileHolds(path: string, expected: Uint8Array): boolean {
  return readFileHead(path, expected.length + 1).equals(expected);
}

/** Where `utf8Of` encodes: comparing a text with a file then allocates no buffer of its own. */
let encoded = Buffer.allocUnsafe(1 << 16);

/**
 * The UTF-8 bytes of `texts` one after another, as a view valid until the next call (and apart
 * from `readFileHead`'s). A replay compares a dozen small files per job, and their `Buffer.from`
 * copies were a large share of what it allocated (docs/performance.md, ledger).
 */
export function utf8Of(texts: string | readonly string[]): Buffer {
  const one = typeof texts === "string";
  let units = 0;
  if (one) units = texts.length;
  else for (let i = 0; i < texts.length; i++) units += texts[i]!.length;
  // A UTF-16 unit takes at most 3 bytes.
  if (units * 3 > KEPT_BYTES) return Buffer.from(one ? texts : texts.join(""), "utf8");
  if (units * 3 > encoded.length) encoded = Buffer.allocUnsafe(KEPT_BYTES);
  let used = 0;
  if (one) used = encoded.write(texts, 0, "utf8");
  else for (let i = 0; i < texts.length; i++) used += encoded.write(texts[i]!, used, "utf8");
  return encoded.subarray(0, used);
}
