import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../support/cli.js";
import { csvRows, eventsOf } from "../support/run-dir.js";

/** Runs a config into its own runs dir under a fixed run id and returns the run directory. */
async function runConfig(config: string): Promise<{ dir: string; code: number | null }> {
  const runs = tempDir();
  const r = await runCli(["run", "--config", config, "--runs-dir", runs, "--run-id", "same"]);
  return { dir: join(runs, "same"), code: r.code };
}

describe("every trainer runs in stub mode", () => {
  it("the 2 × 2 matrix config finishes with all jobs ok", async () => {
    const { dir, code } = await runConfig("configs/m1_matrix_smoke.yaml");
    expect(code).toBe(0);
    const rows = csvRows(join(dir, "results.csv"));
    expect(rows.map((r) => [r.task_id, r.trainer_id, r.status])).toEqual([
      ["internal:numeric_param", "PrioritySearch", "ok"],
      ["internal:numeric_param", "GEPA-Base", "ok"],
      ["internal:code_param", "PrioritySearch", "ok"],
      ["internal:code_param", "GEPA-Base", "ok"],
    ]);
  });

  it("every trainer × numeric_param × 2 seeds: all ok, each ends on the best it reported, and a second run is identical", async () => {
    const first = await runConfig("configs/all_trainers_stub.yaml");
    const second = await runConfig("configs/all_trainers_stub.yaml");
    expect(first.code).toBe(0);
    const rows = csvRows(join(first.dir, "results.csv"));
    expect(rows).toHaveLength(32);
    expect(rows.filter((r) => r.status !== "ok")).toEqual([]);
    // Any search beats -3.0 with the stub's proposals; what a trainer that ends on the wrong
    // values breaks is this: the harness's own final evaluation equals the best score the trainer
    // reported last (one example, so a candidate's score is exact).
    const lastBest = new Map<string, unknown>();
    for (const e of eventsOf(first.dir)) if (e.type === "IterationCompleted" && e.job_id !== null) lastBest.set(e.job_id, e.data.best_score);
    for (const row of rows) {
      expect(Number(row.score_val_initial), row.trainer_id).toBe(-3);
      if (row.trainer_id === "NoOpTrainer") continue;
      expect(Number(row.llm_calls), row.trainer_id).toBeGreaterThan(0);
      expect(Number(row.score_val), `${row.trainer_id} seed ${row.seed}`).toBe(lastBest.get(row.job_id!));
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
