/**
 * Makes a file hold exactly the text handed to it piece by piece, reading the file alongside and
 * holding no more than a chunk of either: a file that already holds the text is not written; one
 * that stops short is appended to; one that holds more is truncated; one that differs is
 * rewritten through a temp file renamed over it at `finish`, so until the whole text was handed
 * over (a log read to its end) the file keeps what it held.
 */
import { closeSync, fstatSync, ftruncateSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { copyPrefix, matchingPrefix } from "../fs/file-prefix.js";
import { openIfPresent } from "../fs/open-if-present.js";
import { writeFully } from "../fs/write-fully.js";

/** Text is compared and written in pieces of about this many characters. */
const CHUNK_CHARS = 1 << 16;

export class StreamedReconcile {
  /** The file, open for reading (and for appending or truncating at its end); null when absent. */
  private fd: number | null;
  /** Where a differing file's new content goes, once it differed. */
  private temp: { path: string; fd: number } | null = null;
  /** Bytes of the file that equal the text handed over so far. */
  private matched = 0;
  /** The file ended before the text did: the rest is appended. */
  private appending = false;
  /**
   * The text handed over and not yet compared, encoded as it comes (gathered as a string, it was
   * copied once more to be encoded; docs/performance.md: ledger, 514b50e).
   */
  private readonly encoded = Buffer.allocUnsafe(CHUNK_CHARS * 3);
  private used = 0;
  private readonly chunk = Buffer.allocUnsafe(CHUNK_CHARS * 3);

  constructor(private readonly path: string) {
    this.fd = openIfPresent(path, "r+");
    if (this.fd === null) {
      this.fd = openSync(path, "w");
      this.appending = true;
    }
  }

  add(text: string): void {
    // A UTF-16 unit takes at most 3 bytes.
    if (text.length * 3 > this.encoded.length - this.used) {
      this.flush();
      // A long text (a big run's start: megabytes) is encoded a chunk at a time, not copied whole.
      if (text.length > CHUNK_CHARS) return this.addInChunks(text);
    }
    this.used += this.encoded.write(text, this.used, "utf8");
  }

  private addInChunks(text: string): void {
    for (let start = 0; start < text.length; ) {
      let end = Math.min(start + CHUNK_CHARS, text.length);
      // A surrogate pair is encoded whole: split, each half would become a replacement character.
      const last = text.charCodeAt(end - 1);
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
      this.used = this.encoded.write(text.slice(start, end), 0, "utf8");
      this.flush();
      start = end;
    }
  }

  /** Settles the file: truncated, appended to or replaced so that it holds the whole text. */
  finish(): void {
    this.flush();
    const fd = this.fd!;
    this.fd = null;
    try {
      const temp = this.temp;
      this.temp = null;
      if (temp !== null) {
        closeSync(temp.fd);
        renameSync(temp.path, this.path);
      } else if (!this.appending && fstatSync(fd).size > this.matched) {
        // More than the text (lines the log does not hold). Truncating to the same size would still touch the file.
        ftruncateSync(fd, this.matched);
      }
    } finally {
      closeSync(fd);
    }
  }

  /** Gives up without settling (the text cannot be had whole): the file keeps what it held, or that and what was appended. */
  abandon(): void {
    const fd = this.fd;
    this.fd = null;
    try {
      if (this.temp !== null) {
        closeSync(this.temp.fd);
        rmSync(this.temp.path, { force: true });
      }
    } finally {
      if (fd !== null) closeSync(fd);
    }
  }

  private flush(): void {
    if (this.used === 0) return;
    const bytes = this.encoded.subarray(0, this.used);
    this.used = 0;
    this.settle(bytes);
  }

  /** Compares `bytes`, the next of the text, with the file, or writes them where the text now goes. */
  private settle(bytes: Buffer): void {
    if (this.temp !== null) return writeFully(this.temp.fd, bytes);
    if (this.appending) return this.append(bytes);
    const { length, ended } = matchingPrefix(this.fd!, this.matched, bytes, this.chunk);
    this.matched += length;
    if (length === bytes.length) return;
    if (ended) {
      // The file stops here: the rest is appended at its end.
      this.appending = true;
      return this.append(bytes.subarray(length));
    }
    this.startTemp();
    writeFully(this.temp!.fd, bytes.subarray(length));
  }

  /** Writes at the file's end (reads are positional, so the descriptor's own position says nothing). */
  private append(bytes: Uint8Array): void {
    for (let offset = 0; offset < bytes.length; ) {
      const wrote = writeSync(this.fd!, bytes, offset, bytes.length - offset, this.matched);
      offset += wrote;
      this.matched += wrote;
    }
  }

  /** The file differs from here on: its matching start is copied into a temp file that continues with the text. */
  private startTemp(): void {
    const path = `${this.path}.${process.pid}.tmp`;
    this.temp = { path, fd: copyPrefix(this.fd!, this.matched, path, this.chunk) };
  }
}
