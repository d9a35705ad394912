/**
 * `objective_config` in a config: `validate --strict` and `run` (one check behind both) refuse a
 * bad value with one line naming the field, and refuse the key on a trainer that cannot select by
 * an objective, never ignoring it.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { builtinTaskRegistry } from "../../../../adapters/tasks/index.js";
import { loadRunConfig } from "../../../../src/config/run-config.js";
import { configProblems } from "../../../../src/engine/config-checks.js";

const tmp = mkdtempSync(join(tmpdir(), "objective-config-check-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const registry = builtinTaskRegistry();

async function problemsOf(trainer: string, objective: string): Promise<string[][]> {
  const path = join(tmp, `${trainer}.yaml`);
  writeFileSync(path, `mode: stub\ntasks: [internal:numeric_param]\ntrainers:\n  - id: ${trainer}\n    params_variants:\n      - objective_config: ${objective}\n`);
  const problems = await configProblems(loadRunConfig(path), registry, { strict: true, tasks: false });
  return problems.map((p) => [p.where.replace(`${path}:`, "line "), p.text]);
}

describe("objective_config in a config", () => {
  it("a valid objective passes on the trainers that select by one", async () => {
    for (const trainer of ["BasicSearchAlgorithm", "BeamsearchAlgorithm", "BeamsearchHistoryAlgorithm", "PrioritySearch", "ParetobasedPS"]) {
      expect(await problemsOf(trainer, "{mode: pareto, weights: {accuracy: 1.0, time: 0.3}, minimize: [time], tie_break: random_seeded, seed: 42}")).toEqual([]);
    }
  });

  it.each(["UCBSearchAlgorithm", "GEPA-Base", "MinibatchAlgorithm", "NoOpTrainer"])("%s refuses the key, naming the trainers that select by an objective", async (trainer) => {
    expect(await problemsOf(trainer, "{mode: weighted}")).toEqual([
      ["line 6", expect.stringMatching(new RegExp(`^trainer ${trainer} does not support objective_config; use a trainer that selects by an objective \\(.*BasicSearchAlgorithm.*PrioritySearch.*\\) or remove it$`))],
    ]);
  });

  it.each([
    ["{mode: max}", "objective_config: mode must be 'scalar', 'weighted', or 'pareto', got 'max'"],
    ["{mode: pareto, tie_break: coin}", "objective_config: tie_break must be 'weighted', 'lexicographic', or 'random_seeded', got 'coin'"],
    ["{mode: weighted, weights: {a: -1}}", "objective_config: Weight for 'a' must be non-negative, got -1.0"],
    ["{mode: weighted, minimise: [a]}", "objective_config: unknown field 'minimise' (valid: mode, weights, minimize, missing_value, pareto_metrics, tie_break, seed, scalarize_dict, score_key)"],
    ["{mode: weighted, minimize: time}", "objective_config.minimize: expected a list of metric names, e.g. [tokens, latency_s]"],
    ["{mode: pareto, pareto_metrics: []}", "objective_config: pareto_metrics must be None (auto) or non-empty tuple"],
    ["{mode: pareto, seed: -3}", "objective_config.seed: expected a whole number from 0 to 4294967295, found -3"],
    ["weighted", 'objective_config: expected a mapping such as {mode: weighted, weights: {accuracy: 1.0}}, found "weighted"'],
  ])("%s is refused: %s", async (objective, message) => {
    expect(await problemsOf("BasicSearchAlgorithm", objective)).toEqual([["line 6", message]]);
  });
});
