/**
 * `fileHolds`: byte for byte, with one read into a reused buffer. A file that decodes to the same
 * text as the expected bytes but holds other bytes does not hold them (replay must rewrite it),
 * and a file longer or shorter than expected does not either, at every buffer size it uses.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileHolds, readFileHead, utf8Of } from "../../../src/fs/file-head.js";
import { tempDir } from "../../support/cli.js";

describe("fileHolds", () => {
  it.each([
    ["a small file", 1_200],
    ["one bigger than the first buffer", 100_000],
    ["one bigger than the buffer it keeps", 3_000_000],
  ])("tells %s that holds the bytes from one a byte longer, a byte shorter or a byte different", (_, size) => {
    const path = join(tempDir(), "f");
    const expected = Buffer.alloc(size, "a");
    writeFileSync(path, expected);
    expect(fileHolds(path, expected)).toBe(true);
    writeFileSync(path, Buffer.concat([expected, Buffer.from("a")]));
    expect(fileHolds(path, expected)).toBe(false);
    writeFileSync(path, expected.subarray(1));
    expect(fileHolds(path, expected)).toBe(false);
    const changed = Buffer.from(expected);
    changed[size - 1] = "b".charCodeAt(0);
    writeFileSync(path, changed);
    expect(fileHolds(path, expected)).toBe(false);
  });

  it("compares bytes, not text: a truncated sequence that decodes to U+FFFD is not the U+FFFD it decodes to", () => {
    const path = join(tempDir(), "f");
    const expected = Buffer.from("score \uFFFD\n", "utf8");
    // The first three bytes of a four-byte sequence: as long as U+FFFD's encoding, decoded as one U+FFFD.
    const corrupt = Buffer.concat([Buffer.from("score "), Buffer.from([0xf0, 0x9f, 0x98]), Buffer.from("\n")]);
    expect(corrupt.toString("utf8")).toBe(expected.toString("utf8"));
    expect(corrupt.length).toBe(expected.length);
    writeFileSync(path, corrupt);
    expect(fileHolds(path, expected)).toBe(false);
  });

  it("an empty file holds no bytes; a missing one is an ENOENT error", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "empty"), "");
    expect(fileHolds(join(dir, "empty"), Buffer.alloc(0))).toBe(true);
    expect(readFileHead(join(dir, "empty"), 10).length).toBe(0);
    expect(() => readFileHead(join(dir, "missing"), 10)).toThrow(expect.objectContaining({ code: "ENOENT" }));
  });
});

describe("utf8Of", () => {
  it.each([
    ["short texts", ["héllo ", "wörld\n", "😀"]],
    ["texts bigger than the buffer it starts with", ["x".repeat(40_000), "é".repeat(30_000)]],
    ["texts bigger than the buffer it keeps", ["y".repeat(500_000), "z"]],
  ])("encodes %s one after another as Buffer.from of their join, and a file holding them holds its view", (_, texts) => {
    const expected = Buffer.from(texts.join(""), "utf8");
    expect(utf8Of(texts).equals(expected)).toBe(true);
    expect(utf8Of(texts.join("")).equals(expected)).toBe(true);
    const path = join(tempDir(), "f");
    writeFileSync(path, expected);
    expect(fileHolds(path, utf8Of(texts))).toBe(true);
  });
});
