/**
 * Issue 34: the same task selects differently under its weighted and its Pareto objective where
 * the objectives conflict. A hand-built case on internal:multiobjective_gsm8k's objectives
 * (error, tokens_in, tokens_out, all minimized, weights 1, 1e-3, 1e-3), keeping two candidates
 * as Beamsearch's beam of width 2 does:
 *   A: right, verbose   {error 0, tokens_in 900, tokens_out 300}  weighted −1.2
 *   B: wrong, terse     {error 1, tokens_in 50,  tokens_out 10}   weighted −1.06
 *   C: wrong, terse too {error 1, tokens_in 60,  tokens_out 12}   weighted −1.072 (B dominates it)
 * Weighted keeps the two best sums, B and C, and drops the only right answer; Pareto keeps the
 * non-dominated front first, A and B (best weighted sum first), and drops C, which B beats on
 * every metric. The single best is B under both: the front's weighted tie-break picks it.
 */
import { describe, expect, it } from "vitest";
import { multiobjectiveGsm8kTask } from "../../../adapters/tasks/internal/multiobjective-gsm8k.js";
import { objectiveConfigFromKwarg } from "../../../src/opt/objectives/objective-config-kwarg.js";
import { selectBest, selectTopK } from "../../../src/opt/objectives/selection.js";

const A = { error: 0, tokens_in: 900, tokens_out: 300 };
const B = { error: 1, tokens_in: 50, tokens_out: 10 };
const C = { error: 1, tokens_in: 60, tokens_out: 12 };
const objectiveOf = (mode: "weighted" | "pareto") => objectiveConfigFromKwarg(multiobjectiveGsm8kTask({ objective_mode: mode }).metadata["objective_config"])!;

describe("weighted and Pareto selection of the same task where the objectives conflict", () => {
  it("a beam of two: weighted keeps B and C, Pareto keeps A and B", () => {
    const names = ["A", "B", "C"];
    const candidates = [A, B, C];
    expect(selectTopK(candidates, objectiveOf("weighted"), 2).map((i) => names[i])).toEqual(["B", "C"]);
    expect(selectTopK(candidates, objectiveOf("pareto"), 2).map((i) => names[i])).toEqual(["B", "A"]);
  });

  it("the single best is the same under both (the Pareto front's tie-break is the weighted sum)", () => {
    expect(selectBest([A, B, C], objectiveOf("weighted"))).toBe(1);
    expect(selectBest([A, B, C], objectiveOf("pareto"))).toBe(1);
  });
});
