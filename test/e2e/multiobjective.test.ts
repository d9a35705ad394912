/**
 * Issue 34 through the real CLI: internal:multiobjective_convex runs in stub mode under the
 * trainers that select by an objective (weighted and Pareto), and `run` refuses objective_config
 * on a trainer that has no objective selection, before creating anything.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, runCli, tempDir } from "../support/cli.js";
import { csvRows, singleRunDir } from "../support/run-dir.js";

const OBJECTIVE = "{mode: MODE, weights: {base_loss: 1.0, reg_loss: 1.0}, minimize: [base_loss, reg_loss]}";

function config(dir: string, yaml: string): string {
  const path = join(dir, "config.yaml");
  writeFileSync(path, yaml);
  return path;
}

/**
 * The original's configs/m3_multiobjective.yaml (test/fixtures/configs/original/): 6 task entries
 * × 3 trainers at seed 42. Ids recomputed with the original's recipe (SHA-256 of the canonical
 * JSON of task, trainer, resolved kwargs and seed), in its task-major order.
 */
const M3_JOB_IDS = [
  "25e6c3cecce0", "4cf77aabcb4b", "14ca77634ed1", "9d56aac7a1ee", "dcaa82f5a1a1", "de0680a02fc8",
  "c981a8848042", "e084cf5d33a0", "271b6116a6fd", "ee0e9ac544e1", "ba869a0d8d10", "7b77c380907f",
  "75f23a830468", "720dc2ba5770", "8a8b85701318", "d35b9ba83092", "e3278194d984", "f64e5f6c96c4",
];

describe("multi-objective runs (issue 34)", () => {
  it("validate --strict of the original's m3_multiobjective.yaml lists its 18 job ids; its three tasks are known", async () => {
    const dir = tempDir();
    const r = await runCli(["validate", "--config", join(REPO_ROOT, "test/fixtures/configs/original/m3_multiobjective.yaml"), "--strict", "--runs-dir", dir], { env: { OPENAI_API_KEY: "not-used" } });
    const ids = [...r.stdout.matchAll(/^ {2}job ([0-9a-f]{12}): /gm)].map((m) => m[1]);
    expect(ids).toEqual(M3_JOB_IDS);
    expect(r.stdout).toContain("[OK] matrix: 18 jobs expanded deterministically");
    for (const task of ["convex", "bbeh", "gsm8k"]) expect(r.stdout.match(new RegExp(`^\\[OK\\] internal:multiobjective_${task}$`, "gm"))).toHaveLength(2);
  });

  it("internal:multiobjective_convex runs in stub mode under BasicSearch, Beamsearch and PrioritySearch with weighted and Pareto objectives", async () => {
    const dir = tempDir();
    const runs = join(dir, "runs");
    const yaml = [
      "mode: stub",
      "seeds: [42]",
      "tasks:",
      "  - {id: internal:multiobjective_convex, eval_kwargs: {objective_mode: weighted}}",
      "trainers:",
      "  - id: BasicSearchAlgorithm",
      `    params_variants: [{num_proposals: 2, num_epochs: 2, batch_size: 1, objective_config: ${OBJECTIVE.replace("MODE", "weighted")}}]`,
      "  - id: BeamsearchAlgorithm",
      `    params_variants: [{beam_width: 2, num_proposals: 2, max_depth: 2, batch_size: 1, objective_config: ${OBJECTIVE.replace("MODE", "pareto")}}]`,
      "  - id: PrioritySearch",
      `    params_variants: [{ps_steps: 2, objective_config: ${OBJECTIVE.replace("MODE", "pareto")}}]`,
      "",
    ].join("\n");
    const r = await runCli(["run", "--config", config(dir, yaml), "--runs-dir", runs]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const rows = csvRows(join(singleRunDir(runs), "results.csv"));
    expect(rows.map((row) => [row.task_id, row.trainer_id, row.status])).toEqual([
      ["internal:multiobjective_convex", "BasicSearchAlgorithm", "ok"],
      ["internal:multiobjective_convex", "BeamsearchAlgorithm", "ok"],
      ["internal:multiobjective_convex", "PrioritySearch", "ok"],
    ]);
    // The original's invalid initial candidate: the first observation line is no x.
    expect(rows.map((row) => row.score_val_initial)).toEqual(["-1.0", "-1.0", "-1.0"]);
  });

  it("run refuses objective_config on UCBSearchAlgorithm: exit 2, one line naming the key and the fix, no run dir", async () => {
    const dir = tempDir();
    const runs = join(dir, "runs");
    const yaml = `tasks: [internal:numeric_param]\ntrainers:\n  - id: UCBSearchAlgorithm\n    params_variants: [{objective_config: ${OBJECTIVE.replace("MODE", "pareto")}}]\n`;
    const r = await runCli(["run", "--config", config(dir, yaml), "--runs-dir", runs]);
    expect(r.code).toBe(2);
    expect(existsSync(runs)).toBe(false);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/config\.yaml:4: trainer UCBSearchAlgorithm does not support objective_config; use a trainer that selects by an objective \(BasicSearchAlgorithm, .*\) or remove it/);
  });
});
