import { describe, expect, it } from "vitest";
import { EXACT_PERMUTATION_MAX_N, permutationTest, signTest } from "../../../src/events/projections/paired-tests.js";
import { compareArms, differingAxes, verdictLine } from "../../../src/events/projections/run-comparison.js";
import type { ResultRow } from "../../../src/events/projections/results-table.js";

const row = (fields: { task?: string; seed: number; score: number | null; model?: string; variant?: string; trainer?: string; status?: string }): ResultRow =>
  ({
    task_id: fields.task ?? "t",
    seed: fields.seed,
    trainer_id: fields.trainer ?? "PS",
    variant: fields.variant ?? "default",
    resolved_optimizer: "O",
    llm_model: fields.model ?? "m",
    status: fields.status ?? "ok",
    score_val: fields.score,
  }) as unknown as ResultRow;

describe("sign test", () => {
  it("is the two-sided exact binomial p of the signs, ties dropped", () => {
    // 5 of 5 positive: 2 · (1/32).
    expect(signTest([1, 2, 3, 4, 5]).p).toBeCloseTo(2 / 32, 15);
    // 4 positive, 1 negative: 2 · (1 + 5) / 32.
    expect(signTest([1, 2, 3, 4, -5]).p).toBeCloseTo(12 / 32, 15);
    expect(signTest([1, 0, 0, -1])).toEqual({ positive: 1, negative: 1, ties: 2, p: 1 });
    expect(signTest([0, 0]).p).toBe(1);
  });
});

describe("permutation test", () => {
  it("is exact over every sign assignment for small n", () => {
    // |sum| of ±1, ±2, ±3 is ≥ 6 only for all + or all −: 2 of 8.
    expect(permutationTest([1, 2, 3])).toEqual({ p: 2 / 8, method: "exact", assignments: 8 });
    // ±1 ±1 ±1 ±1 ≥ |2 − 2| = 0: every assignment.
    expect(permutationTest([1, 1, -1, -1]).p).toBe(1);
  });

  it("beyond the exact limit draws seeded sign flips: the same differences always give the same p, never 0", () => {
    const diffs = Array.from({ length: EXACT_PERMUTATION_MAX_N + 4 }, (_, i) => (i % 3 === 0 ? -0.5 : 1) * (1 + i / 10));
    const first = permutationTest(diffs);
    expect(first.method).toBe("monte_carlo");
    expect(permutationTest([...diffs])).toEqual(first);
    expect(first.p).toBeGreaterThan(0);
    expect(permutationTest(Array(30).fill(1)).p).toBeGreaterThan(0);
    expect(permutationTest(Array(30).fill(1)).p).toBeLessThan(0.001);
  });
});

describe("paired comparison", () => {
  it("pairs on task and seed, per task and overall, and counts the jobs without a partner or a score", () => {
    const a = [1, 2, 3, 4, 5].flatMap((seed) => [row({ seed, score: seed, model: "a" }), row({ task: "u", seed, score: 10, model: "a" })]);
    const b = [
      ...[1, 2, 3, 4, 5].map((seed) => row({ seed, score: seed - 0.5, model: "b" })),
      ...[1, 2, 3, 4].map((seed) => row({ task: "u", seed, score: 11, model: "b" })),
      row({ task: "u", seed: 5, score: null, model: "b", status: "failed" }),
      row({ seed: 6, score: 0, model: "b" }),
    ];
    expect(differingAxes(a, b)).toEqual(["model"]);
    const c = compareArms(a, b, ["model"]);
    expect(c.paired_on).toEqual(["task", "seed", "trainer", "variant", "optimizer"]);
    expect(c.unpaired).toEqual({ a: 1, b: 2 });
    expect(c.tasks.map((t) => [t.task_id, t.pairs, t.mean_a, t.mean_b, t.mean_diff, t.ahead, t.margin])).toEqual([
      ["t", 5, 3, 2.5, 0.5, "A", 0.5],
      ["u", 4, 10, 11, -1, "B", 1],
    ]);
    expect(c.tasks[0]!.ci95).toEqual([0.5, 0.5]);
    expect(c.tasks[1]!.ci95).toBeNull();
    expect(c.tasks[1]!.ci95_note).toBe("n too small");
    expect(c.overall.pairs).toBe(9);
    expect(c.overall.mean_diff).toBeCloseTo((5 * 0.5 - 4) / 9, 12);
    expect(verdictLine(c.tasks[0]!, "A", "B")).toBe("A is ahead, not significantly (p ≥ 0.05), by 0.5 in mean score over 5 pairs (permutation p = 0.0625, sign test p = 0.0625).");
  });

  it("an axis two runs share a value on stays in the key: only the shared values pair", () => {
    const sweep = [1, 2].flatMap((seed) => [row({ seed, score: 1, variant: "k=1" }), row({ seed, score: 2, variant: "k=3" })]);
    const single = [1, 2].map((seed) => row({ seed, score: 1.5, variant: "k=3" }));
    expect(differingAxes(sweep, single)).toEqual([]);
    const c = compareArms(sweep, single, []);
    expect([c.overall.pairs, c.overall.mean_diff, c.unpaired.a]).toEqual([2, 0.5, 2]);
  });

  it("an arm with several jobs for one task and seed on the left-out axis is refused with the values", () => {
    const a = [row({ seed: 1, score: 1, model: "x" }), row({ seed: 1, score: 2, model: "y" })];
    expect(() => compareArms(a, [row({ seed: 1, score: 1, model: "z" })], ["model"])).toThrow(/arm A has several jobs for task t, seed 1 differing in model \(x, y\)/);
  });
});
