/** Selection as trainers use it: a candidate with a failed example (−∞ in its dict) ranks last instead of stopping the run. */
import { describe, expect, it } from "vitest";
import { objectiveConfig } from "../../../../src/opt/objectives/objective-config.js";
import { selectBest, selectTopK } from "../../../../src/opt/objectives/selection.js";

const failed = { accuracy: 0.9, score: Number.NEGATIVE_INFINITY };
const fine = { accuracy: 0.5 };

describe("selection with a failed candidate (deliberate difference)", () => {
  it("the reference's check refuses the −∞ and stops; a trainer's selection ranks it last", () => {
    const pareto = objectiveConfig({ mode: "pareto", weights: { accuracy: 1 } });
    expect(() => selectBest([failed, fine], pareto)).toThrow("Score dict value for 'score' must be finite float, got -inf");
    // Pareto: the failed example's {score: −∞} ties with the "score" the other candidate lacks (also
    // −∞), so on accuracy, the mean of its other examples, the failed candidate dominates: the
    // reference's evaluate_vector semantics, kept.
    expect(selectBest([failed, fine], pareto, { allowNegativeInfinity: true })).toBe(0);
    const weighted = objectiveConfig({ mode: "weighted" });
    expect(selectBest([failed, fine], weighted, { allowNegativeInfinity: true })).toBe(1);
    expect(selectTopK([failed, fine], weighted, 2, { allowNegativeInfinity: true })).toEqual([1, 0]);
  });
});
