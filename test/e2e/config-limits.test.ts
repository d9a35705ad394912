/**
 * Configs cannot exhaust the machine or crash a run: only regular files of bounded size are read,
 * the matrix is counted before anything is expanded or written (a run over the job limit is
 * refused with the count and the flag that raises it), Ctrl-C works while a run is planned, and a
 * job timeout no timer can hold (`.inf`) is refused by `validate` and by `run` before its run
 * directory exists.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, REPO_ROOT, runCli, tempDir } from "../support/cli.js";

function config(dir: string, yaml: string, name = "config.yaml"): string {
  const path = join(dir, name);
  writeFileSync(path, yaml);
  return path;
}

/** Exit 2 and exactly one stderr line, no stack trace; returns the line. */
function oneErrorLine(result: ReturnType<typeof runCli>): string {
  expect(result.code, result.stderr).toBe(2);
  const lines = result.stderr.split("\n").filter((l) => l !== "");
  expect(lines, result.stderr).toHaveLength(1);
  expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
  return lines[0]!;
}

const runDirsIn = (runs: string) => (existsSync(runs) ? readdirSync(runs).filter((n) => !n.startsWith(".")) : []);

describe("job_timeout a timer cannot hold", () => {
  const trivial = "mode: stub\ntasks: [internal:numeric_param]\ntrainers: [NoOpTrainer]\n";

  for (const value of [".inf", "1.0e+12"]) {
    it(`job_timeout: ${value} fails validate --strict and run, naming the key and the range, before a run dir exists`, () => {
      const dir = tempDir();
      const runs = join(dir, "runs");
      const cfg = config(dir, `job_timeout: ${value}\n${trivial}`);
      for (const args of [
        ["validate", "--strict", "--config", cfg, "--runs-dir", runs],
        ["run", "--config", cfg, "--runs-dir", runs],
      ]) {
        const line = oneErrorLine(runCli(args));
        expect(line, args[0]).toContain(`${cfg}:1: job_timeout:`);
        expect(line, args[0]).toContain("a number of seconds from 0 to 2147483");
      }
      expect(runDirsIn(runs)).toEqual([]);
    });
  }

  it("--job-timeout beyond the range is refused before a run dir exists", () => {
    const dir = tempDir();
    const runs = join(dir, "runs");
    const r = runCli(["run", "--config", config(dir, trivial), "--runs-dir", runs, "--job-timeout", "1e12"]);
    // A usage error: its line, and the line pointing at --help.
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^trace-bench: --job-timeout must be a number of seconds from 0 to 2147483 .*, got '1e12'\nRun 'trace-bench run --help' for usage\.\n$/);
    expect(runDirsIn(runs)).toEqual([]);
  });
});
