/**
 * The unit tier is pure code: no test in it starts a process (python3, the CLI, a shell), so it needs
 * no build and no python3, and its worker thread is never blocked waiting on a child. A test that needs
 * one belongs in test/int or test/e2e.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const UNIT = fileURLToPath(new URL("..", import.meta.url));
const PROCESS_MODULES = /from\s+["'](?:node:)?child_process["']|from\s+["']execa["']|import\(\s*["'](?:(?:node:)?child_process|execa)["']\s*\)/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("the unit tier", () => {
  it("starts no process: no unit test imports child_process or execa", () => {
    const files = testFiles(UNIT);
    expect(files.length).toBeGreaterThan(50);
    expect(files.filter((file) => PROCESS_MODULES.test(readFileSync(file, "utf8"))).map((file) => file.slice(UNIT.length))).toEqual([]);
  });
});
