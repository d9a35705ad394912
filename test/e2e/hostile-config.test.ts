import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../support/cli.js";

/** The classic billion laughs: 9 levels of 9 aliases each, 9^9 strings once expanded. */
const BILLION_LAUGHS = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...Array.from({ length: 8 }, (_, i) => `${"bcdefghi"[i]}: &${"bcdefghi"[i]} [${Array(9).fill(`*${"abcdefgh"[i]}`).join(",")}]`),
  "tasks: [internal:numeric_param]",
  "",
].join("\n");

function writeConfig(name: string, text: string): string {
  const path = join(tempDir(), name);
  writeFileSync(path, text);
  return path;
}

/** Exit 2 and exactly one stderr line, a config error naming the file, with no stack trace. */
function expectOneConfigErrorLine(result: Awaited<ReturnType<typeof runCli>>, path: string): string {
  expect(result.code).toBe(2);
  const lines = result.stderr.split("\n").filter((l) => l !== "");
  expect(lines).toHaveLength(1);
  expect(lines[0]!.startsWith(`trace-bench: config error: ${path}:`)).toBe(true);
  expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
  return lines[0]!;
}

describe("hostile configs through the CLI", () => {
  it("validate on an alias bomb exits 2 with one line about aliases and no stack trace", async () => {
    const path = writeConfig("bomb.yaml", BILLION_LAUGHS);
    const line = expectOneConfigErrorLine(await runCli(["validate", "--config", path]), path);
    expect(line).toContain("alias bomb");
  });

  it("run on an alias bomb exits 2 the same way", async () => {
    const path = writeConfig("bomb.yaml", BILLION_LAUGHS);
    const runsDir = join(tempDir(), "runs");
    const line = expectOneConfigErrorLine(await runCli(["run", "--config", path, "--runs-dir", runsDir]), path);
    expect(line).toContain("alias bomb");
  });

  it("validate on JSON nested 100,000 levels deep exits 2 with one line", async () => {
    const depth = 100_000;
    const path = writeConfig("deep.json", `{"tasks": ["internal:numeric_param"], "eval_kwargs": {"x": ${"[".repeat(depth)}${"]".repeat(depth)}}}`);
    const line = expectOneConfigErrorLine(await runCli(["validate", "--config", path]), path);
    expect(line).toContain("nested more than 64 levels");
  });
});
