/**
 * A task whose suite this build lacks (Terminal-Bench) is planned like any other: the original's
 * configs/terminal_bench_demo.yaml (test/fixtures/configs/original/) validates with the original's
 * job id and a [SKIP] line, and runs as one `skipped` job with the reason, not a config error.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, runCli, tempDir } from "../support/cli.js";
import { csvRows, eventsOf, singleRunDir } from "../support/run-dir.js";

const DEMO = join(REPO_ROOT, "test", "fixtures", "configs", "original", "terminal_bench_demo.yaml");
const REASON = "terminal_bench_unavailable: the Terminal-Bench adapter (Harbor) is not built into this version of trace-bench";

describe("terminal_bench_demo.yaml (issue 34)", () => {
  it("validate --strict without --bench keeps the Terminal-Bench task: [SKIP] with the reason, the original's job id, exit 0", async () => {
    const dir = tempDir();
    const r = await runCli(["validate", "--config", DEMO, "--strict", "--runs-dir", dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`[SKIP] terminal_bench:regex-log: ${REASON}\n`);
    expect([...r.stdout.matchAll(/^ {2}job ([0-9a-f]{12}): /gm)].map((m) => m[1])).toEqual(["a33d67d4c4d5"]);
  });

  it("run records one skipped job with the reason; replay verifies", async () => {
    const dir = tempDir();
    const r = await runCli(["run", "--config", DEMO, "--runs-dir", dir]);
    expect(r.code, r.stderr).toBe(0);
    const runDir = singleRunDir(dir);
    expect(csvRows(join(runDir, "results.csv")).map((row) => [row.job_id, row.task_id, row.status, row.feedback])).toEqual([["a33d67d4c4d5", "terminal_bench:regex-log", "skipped", REASON]]);
    expect(eventsOf(runDir).some((e) => e.type === "LlmCallStarted")).toBe(false);
    const verify = await runCli(["replay", runDir, "--verify"]);
    expect(verify.code, verify.stderr).toBe(0);
  });
});
