/**
 * StreamedReconcile on real files: the text is handed over in pieces larger and smaller than its
 * chunk, and the file ends up holding exactly that text, touched only as much as it must be.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { StreamedReconcile } from "../../../src/events/streamed-reconcile.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fileHolding(text: string | null): string {
  const dir = mkdtempSync(join(tmpdir(), "trace-bench-reconcile-"));
  dirs.push(dir);
  const path = join(dir, "events.jsonl");
  if (text !== null) writeFileSync(path, text);
  return path;
}

/** About 300 kB of lines (several chunks), some of them not ASCII. */
const lines = Array.from({ length: 3000 }, (_, i) => `{"seq":${i + 1},"data":"${i % 7 === 0 ? "é—" : "x"}${"y".repeat(90)}"}\n`);
const whole = lines.join("");

function reconcile(path: string, pieces: readonly string[]): void {
  const file = new StreamedReconcile(path);
  for (const piece of pieces) file.add(piece);
  file.finish();
}

describe("StreamedReconcile", () => {
  it("leaves a file that already holds the text as it is (same inode, never written)", () => {
    const path = fileHolding(whole);
    const before = statSync(path);
    reconcile(path, lines);
    const after = statSync(path);
    expect(readFileSync(path, "utf8")).toBe(whole);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
  });

  it("creates an absent file, appends to one that stops short (a torn last line too), and truncates one that holds more", () => {
    const absent = fileHolding(null);
    reconcile(absent, lines);
    expect(readFileSync(absent, "utf8")).toBe(whole);

    const short = fileHolding(whole.slice(0, 150_000) + whole.slice(150_000, 150_040));
    const ino = statSync(short).ino;
    reconcile(short, lines);
    expect(readFileSync(short, "utf8")).toBe(whole);
    expect(statSync(short).ino).toBe(ino); // appended in place

    const long = fileHolding(whole + '{"seq":99999}\n');
    reconcile(long, lines);
    expect(readFileSync(long, "utf8")).toBe(whole);
  });

  it("takes a single line longer than its chunk (a big run's start), astral characters on every chunk boundary included", () => {
    // 65,536 characters a chunk: an emoji (a surrogate pair) placed across each boundary.
    const chunk = 1 << 16;
    let text = '{"seq":1,"data":"';
    while (text.length < 5 * chunk) text += "a".repeat(chunk - 1 - (text.length % chunk)) + "😀";
    text += '"}\n';
    const pieces = ["head\n", text, "tail\n"];
    const expected = pieces.join("");

    const absent = fileHolding(null);
    reconcile(absent, pieces);
    expect(readFileSync(absent, "utf8")).toBe(expected);

    const same = fileHolding(expected);
    const before = statSync(same);
    reconcile(same, pieces);
    expect([statSync(same).ino, statSync(same).mtimeMs]).toEqual([before.ino, before.mtimeMs]);

    const differs = fileHolding(expected.slice(0, 3 * chunk) + "b" + expected.slice(3 * chunk + 1));
    reconcile(differs, pieces);
    expect(readFileSync(differs, "utf8")).toBe(expected);
  });

  it("replaces a file that differs past its first chunk, and keeps the old file until finish", () => {
    const doctored = whole.replace('{"seq":2500,', '{"seq":2501,');
    const path = fileHolding(doctored);
    const file = new StreamedReconcile(path);
    for (const line of lines) file.add(line);
    expect(readFileSync(path, "utf8")).toBe(doctored); // a log that failed here would leave the file as it was
    file.finish();
    expect(readFileSync(path, "utf8")).toBe(whole);
    expect(readFileSync(path, "utf8").length).toBe(whole.length);
  });

  it("abandoned midway, leaves the file as it was and no temp file beside it", () => {
    const doctored = whole.replace('{"seq":10,', '{"seq":11,');
    const path = fileHolding(doctored);
    const file = new StreamedReconcile(path);
    for (const line of lines.slice(0, 2000)) file.add(line);
    file.abandon();
    expect(readFileSync(path, "utf8")).toBe(doctored);
    expect(readdirSync(dirname(path))).toEqual(["events.jsonl"]);
  });

  it("handles the text as one piece larger than a chunk", () => {
    const path = fileHolding("garbage\n");
    reconcile(path, [whole]);
    expect(readFileSync(path, "utf8")).toBe(whole);
  });
});
