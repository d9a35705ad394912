/**
 * Terminal-Bench end to end: `list-tasks` lists the original's sample slugs; the original's demo
 * config validates with the original's job id and runs in mode stub without Harbor, scoring as
 * the original's stub does.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, runCli, tempDir } from "../support/cli.js";
import { csvRows } from "../support/run-dir.js";

const DEMO = join(REPO_ROOT, "test", "fixtures", "configs", "original", "terminal_bench_demo.yaml");

describe("terminal_bench", () => {
  it("list-tasks lists the original's four sample slugs", async () => {
    const r = await runCli(["list-tasks", "--bench", "terminal_bench"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("terminal_bench:regex-log\nterminal_bench:log-summary-date-ranges\nterminal_bench:multi-source-data-merger\nterminal_bench:financial-document-processor\n");
  });

  it("the original's demo config validates with the original's job id", async () => {
    const r = await runCli(["validate", "--config", DEMO, "--strict", "--bench", "terminal_bench", "--runs-dir", tempDir()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("[OK] terminal_bench:regex-log");
    expect(r.stdout).toContain("  job a33d67d4c4d5: terminal_bench:regex-log x PrioritySearch");
  });

  it("the demo config runs in mode stub without Harbor (none on PATH), scoring 0 as the original's stub", async () => {
    const dir = tempDir();
    const r = await runCli(["run", "--config", DEMO, "--runs-dir", dir, "--run-id", "stub"], { cwd: dir, env: { ...process.env, PATH: `${join(process.execPath, "..")}` } });
    expect(r.code, r.stderr).toBe(0);
    const [row] = csvRows(join(dir, "stub", "results.csv"));
    expect(row!.job_id).toBe("a33d67d4c4d5");
    expect(row!.status, row!.feedback).toBe("ok");
    expect(Number(row!.score_val_final)).toBe(0);
    expect(row!.resolved_guide).toBe("terminal_bench.TerminalBenchGuide");
    expect(readFileSync(join(dir, "stub", "jobs", "a33d67d4c4d5", "results.json"), "utf8")).toContain("STUB: terminal_bench task=regex-log (harbor not invoked)");
  });
});
