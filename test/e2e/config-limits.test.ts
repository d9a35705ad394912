/**
 * Configs cannot exhaust the machine or crash a run: only regular files of bounded size are read,
 * the matrix is counted before anything is expanded or written (a run over the job limit is
 * refused with the count and the flag that raises it), Ctrl-C works while a run is planned, and a
 * job timeout no timer can hold (`.inf`) is refused by `validate` and by `run` before its run
 * directory exists.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, REPO_ROOT, runCli, tempDir } from "../support/cli.js";
import { signalWhenSaid } from "../support/processes.js";

function config(dir: string, yaml: string, name = "config.yaml"): string {
  const path = join(dir, name);
  writeFileSync(path, yaml);
  return path;
}

/** Exit 2 and exactly one stderr line, no stack trace; returns the line. */
function oneErrorLine(result: Awaited<ReturnType<typeof runCli>>): string {
  expect(result.code, result.stderr).toBe(2);
  const lines = result.stderr.split("\n").filter((l) => l !== "");
  expect(lines, result.stderr).toHaveLength(1);
  expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
  return lines[0]!;
}

const runDirsIn = (runs: string) => (existsSync(runs) ? readdirSync(runs).filter((n) => !n.startsWith(".")) : []);

describe("job_timeout a timer cannot hold", () => {
  const trivial = "mode: stub\ntasks: [internal:numeric_param]\ntrainers: [NoOpTrainer]\n";

  // 1.0e+12 and the range's end: test/unit/config/job-timeout-range.test.ts (the same check in the loader).
  for (const value of [".inf"]) {
    it(`job_timeout: ${value} fails validate --strict and run, naming the key and the range, before a run dir exists`, async () => {
      const dir = tempDir();
      const runs = join(dir, "runs");
      const cfg = config(dir, `job_timeout: ${value}\n${trivial}`);
      for (const args of [
        ["validate", "--strict", "--config", cfg, "--runs-dir", runs],
        ["run", "--config", cfg, "--runs-dir", runs],
      ]) {
        const line = oneErrorLine(await runCli(args));
        expect(line, args[0]).toContain(`${cfg}:1: job_timeout:`);
        expect(line, args[0]).toContain("a number of seconds from 0 to 2147483");
      }
      expect(runDirsIn(runs)).toEqual([]);
    });
  }

  it("--job-timeout beyond the range is refused before a run dir exists", async () => {
    const dir = tempDir();
    const runs = join(dir, "runs");
    const r = await runCli(["run", "--config", config(dir, trivial), "--runs-dir", runs, "--job-timeout", "1e12"]);
    // A usage error: its line, and the line pointing at --help.
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^trace-bench: --job-timeout must be a number of seconds from 0 to 2147483 .*, got '1e12'\nRun 'trace-bench run --help' for usage\.\n$/);
    expect(runDirsIn(runs)).toEqual([]);
  });
});

describe("only a regular config file of bounded size is read", () => {
  /** run and validate on `path` each exit 2 with one line naming it and `why`; no run dir is made. */
  async function refusedByRunAndValidate(path: string, why: string): Promise<void> {
    const dir = tempDir();
    const runs = join(dir, "runs");
    for (const args of [
      ["validate", "--strict", "--config", path, "--runs-dir", runs],
      ["run", "--config", path, "--runs-dir", runs],
    ]) {
      const line = oneErrorLine(await runCli(args));
      expect(line, args[0]).toBe(`trace-bench: config error: ${path}: ${why}`);
    }
    expect(existsSync(runs)).toBe(false);
  }

  it("a device (/dev/zero) is refused at once, not read until memory runs out", async () => {
    await refusedByRunAndValidate("/dev/zero", "cannot read config file (it is a device, not a regular file); pass a YAML or JSON file with --config");
  });
  // A named pipe and a file over 16 MiB: the same refusal in the loader, test/int/config/config-file-limits.test.ts.
});

describe("the matrix is counted before it is expanded", () => {
  /** 130 KB of YAML: 1 task × 64 params variants × 20,000 seeds = 1,280,000 jobs. */
  const hugeMatrix = [
    "mode: stub",
    `seeds: [${Array.from({ length: 20_000 }, (_, i) => i + 1).join(", ")}]`,
    "tasks: [internal:numeric_param]",
    "trainers:",
    "  - id: PrioritySearch",
    `    params_variants: [${Array.from({ length: 64 }, (_, i) => `{ps_steps: ${i + 1}}`).join(", ")}]`,
    "",
  ].join("\n");
  const overLimit = "matrix: 1,280,000 jobs (1 task × 64 trainer variants × 20,000 seeds) is over the limit of 100,000 jobs; pass --max-jobs 1280000 to run them all, or make the matrix smaller";

  it("run refuses a matrix over 100,000 jobs with the count and the flag, before anything is written", async () => {
    const dir = tempDir();
    const runs = join(dir, "runs");
    const cfg = config(dir, hugeMatrix);
    expect(oneErrorLine(await runCli(["run", "--config", cfg, "--runs-dir", runs]))).toBe(`trace-bench: config error: ${cfg}: ${overLimit}`);
    expect(existsSync(runs)).toBe(false);
  });

  it("validate --strict fails it without expanding it (no manifest); plain validate warns", async () => {
    const dir = tempDir();
    const runs = join(dir, "runs");
    const cfg = config(dir, hugeMatrix);
    const strict = await runCli(["validate", "--strict", "--config", cfg, "--runs-dir", runs]);
    expect(strict.code, strict.stderr).toBe(1);
    expect(strict.stdout).toContain(`[FAIL] ${overLimit}\n`);
    expect(existsSync(runs)).toBe(false);
    const plain = await runCli(["validate", "--config", cfg]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toContain(`trace-bench: warning: ${overLimit} (run refuses this; validate --strict fails it)\n`);
  });

  it("--max-jobs N moves the limit both ways", async () => {
    const dir = tempDir();
    const runs = join(dir, "runs");
    const cfg = config(dir, "mode: stub\nseeds: [1, 2, 3]\ntasks: [internal:numeric_param, internal:multi_param]\ntrainers: [NoOpTrainer]\n");
    const line = oneErrorLine(await runCli(["run", "--config", cfg, "--runs-dir", runs, "--max-jobs", "5"]));
    expect(line).toBe(`trace-bench: config error: ${cfg}: matrix: 6 jobs (2 tasks × 1 trainer variant × 3 seeds) is over the limit of 5 jobs; pass --max-jobs 6 to run them all, or make the matrix smaller`);
    expect(existsSync(runs)).toBe(false);
    const ran = await runCli(["run", "--config", cfg, "--runs-dir", runs, "--max-jobs", "6"]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain("Jobs: 6 ok");
    const bad = await runCli(["run", "--config", cfg, "--runs-dir", runs, "--max-jobs", "1e3"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--max-jobs must be a whole number ≥ 1, got '1e3'");
  });

  it("Ctrl-C while a big matrix is planned ends the run at once, leaving no run", async () => {
    const dir = tempDir();
    const runs = join(dir, "runs");
    const cfg = config(dir, hugeMatrix);
    const child = spawn(process.execPath, [CLI, "run", "--config", cfg, "--runs-dir", runs, "--max-jobs", "2000000"], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
    const output = signalWhenSaid(child, "Planning 1,280,000 jobs...\n");
    // A run that never says it plans, or does not answer Ctrl-C, would plan for minutes: it is killed.
    const guard = setTimeout(() => child.kill("SIGKILL"), 90_000);
    const { code, signal } = await exited.finally(() => clearTimeout(guard));
    expect(output.sent(), `${output.stdout()}\n${stderr}`).toBe(true);
    // Ended by the signal as a shell sees it: exit status 130.
    expect({ code, signal }, stderr).toSatisfy((e: { code: number | null; signal: NodeJS.Signals | null }) => e.code === 130 || e.signal === "SIGINT");
    expect(runDirsIn(runs).filter((name) => existsSync(join(runs, name, "events.db")))).toEqual([]);
  }, 120_000);
});
