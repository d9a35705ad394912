/**
 * docs/tasks.md's worked example stays true: the suite in docs/examples/units-suite.mjs is listed,
 * validated and run (mode stub) with the config beside it, as the page says to.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, runCli, tempDir } from "../support/cli.js";
import { csvRows, singleRunDir } from "../support/run-dir.js";

const EXAMPLES = join(REPO_ROOT, "docs", "examples");
const env = { TRACE_BENCH_TASK_MODULES: join(EXAMPLES, "units-suite.mjs") };
const CONFIG = join(EXAMPLES, "units.yaml");

describe("docs/tasks.md: the example task suite", () => {
  it("is listed under its own suite name", async () => {
    const r = await runCli(["list-tasks", "--bench", "units"], { env });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("units:celsius_to_fahrenheit\nunits:reading_label\n");
  });

  it("validates strictly and runs with the stub LLM: every job ok, the search finds better values", async () => {
    const checked = await runCli(["validate", "--config", CONFIG, "--strict", "--runs-dir", tempDir()], { env });
    expect(checked.code, checked.stderr).toBe(0);

    const runsDir = tempDir();
    const r = await runCli(["run", "--config", CONFIG, "--runs-dir", runsDir], { env });
    expect(r.code, r.stderr).toBe(0);
    const runDir = singleRunDir(runsDir);
    const rows = csvRows(join(runDir, "results.csv"));
    expect(rows.map((row) => row.task_id).sort()).toEqual([...Array(3).fill("units:celsius_to_fahrenheit"), ...Array(3).fill("units:reading_label")]);
    for (const row of rows) {
      expect(row.status, row.job_id).toBe("ok");
      expect(Number(row.score_val), row.job_id).toBeGreaterThanOrEqual(Number(row.score_val_initial));
    }
    // The conversion task has a test split; the label task has none.
    for (const row of rows) expect(row.score_test === "", row.job_id).toBe(row.task_id === "units:reading_label");

    // The stub proposes the label's alternatives (it writes no text of its own), and some seed finds the one the guide wants.
    const labels = rows
      .filter((row) => row.task_id === "units:reading_label")
      .map((row) => (JSON.parse(readFileSync(join(runDir, row.best_state_path!.replace(/\.yaml$/, ".json")), "utf8")) as { parameter: { value: string } }).parameter.value);
    for (const label of labels) expect(["degrees", "F", "°F", "Fahrenheit"]).toContain(label);
    expect(rows.some((row) => row.task_id === "units:reading_label" && Number(row.score_val) > Number(row.score_val_initial))).toBe(true);
  });
});
