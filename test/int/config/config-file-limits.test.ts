/**
 * Only a regular config file of bounded size is read: a named pipe (which would wait for a writer
 * forever) and a file over 16 MiB are refused by the loader `run` and `validate` share, with one
 * line naming the file and the fix. The CLI's side (exit 2, one line, no run dir, for both verbs)
 * is test/e2e/config-limits.test.ts's, shown there with /dev/zero.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/config/config-error.js";
import { loadRunConfig } from "../../../src/config/run-config.js";

const dir = mkdtempSync(join(tmpdir(), "trace-bench-config-limits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const trivial = "mode: stub\ntasks: [internal:numeric_param]\ntrainers: [NoOpTrainer]\n";

/** The one problem line loading `path` gives (a ConfigError is what the CLI prints as one line, exit 2). */
function refusal(path: string): string {
  let thrown: unknown;
  try {
    loadRunConfig(path);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ConfigError);
  const problems = (thrown as ConfigError).problems;
  expect(problems).toHaveLength(1);
  return problems[0]!;
}

describe("only a regular config file of bounded size is read", () => {
  it("a named pipe is refused at once, not waited on", () => {
    const fifo = join(dir, "config.yaml");
    const made = spawnSync("mkfifo", [fifo]);
    expect(made.status, String(made.stderr)).toBe(0);
    expect(refusal(fifo)).toBe(`${fifo}: cannot read config file (it is a named pipe, not a regular file); pass a YAML or JSON file with --config`);
  });

  it("a file over 16 MiB is refused with the limit", () => {
    const big = `${trivial}# ${"x".repeat(16 * 2 ** 20)}\n`;
    const path = join(dir, "big.yaml");
    writeFileSync(path, big);
    const bytes = Buffer.byteLength(big).toLocaleString("en-US");
    expect(refusal(path)).toBe(`${path}: cannot read config file (it is ${bytes} bytes, over the 16 MiB a config may be); keep large data in files the task reads, not inline in the config`);
  });
});
