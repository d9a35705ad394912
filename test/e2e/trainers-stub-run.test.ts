import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../support/cli.js";
import { csvRows } from "../support/run-dir.js";

/** Runs a config into its own runs dir under a fixed run id and returns the run directory. */
function runConfig(config: string): { dir: string; code: number | null } {
  const runs = tempDir();
  const r = runCli(["run", "--config", config, "--runs-dir", runs, "--run-id", "same"]);
  return { dir: join(runs, "same"), code: r.code };
}

describe("every trainer runs in stub mode", () => {
  it("the 2 × 2 matrix config finishes with all jobs ok", () => {
    const { dir, code } = runConfig("configs/m1_matrix_smoke.yaml");
    expect(code).toBe(0);
    const rows = csvRows(join(dir, "results.csv"));
    expect(rows.map((r) => [r.task_id, r.trainer_id, r.status])).toEqual([
      ["internal:numeric_param", "PrioritySearch", "ok"],
      ["internal:numeric_param", "GEPA-Base", "ok"],
      ["internal:code_param", "PrioritySearch", "ok"],
      ["internal:code_param", "GEPA-Base", "ok"],
    ]);
  });

  it("every trainer × numeric_param × 2 seeds: all ok, the searches improve on -3.0, and a second run is identical", () => {
    const first = runConfig("configs/all_trainers_stub.yaml");
    const second = runConfig("configs/all_trainers_stub.yaml");
    expect(first.code).toBe(0);
    const rows = csvRows(join(first.dir, "results.csv"));
    expect(rows).toHaveLength(30);
    expect(rows.filter((r) => r.status !== "ok")).toEqual([]);
    for (const trainer of ["PrioritySearch", "GEPA-Base", "BasicSearchAlgorithm"]) {
      for (const row of rows.filter((r) => r.trainer_id === trainer)) {
        expect(Number(row.score_val_initial), trainer).toBe(-3);
        expect(Number(row.score_val), trainer).toBeGreaterThan(-3);
        expect(Number(row.llm_calls), trainer).toBeGreaterThan(0);
      }
    }
    const comparable = (dir: string) =>
      csvRows(join(dir, "results.csv")).map((r) => ({ ...r, time_seconds: "" }));
    expect(comparable(second.dir)).toEqual(comparable(first.dir));
    for (const row of rows) {
      const history = (dir: string) => readFileSync(join(dir, row.state_history_path!), "utf8");
      expect(history(second.dir), row.trainer_id).toBe(history(first.dir));
    }
  });
});
