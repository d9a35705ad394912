import { describe, expect, it } from "vitest";
import { createStubLlm } from "../../../../adapters/llm/stub-llm.js";
import { ucbScore, ucbSearchTrainer } from "../../../../src/opt/trainers/ucb-search.js";
import { scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { perStep, recording, runTrainer, targetBundle } from "../../../support/trainer-harness.js";

describe("UCBSearchAlgorithm (reference §3.5)", () => {
  it("expands the argmax-UCB candidate each iteration at 1 LLM call + train_batch_size + evaluation_batch_size evaluations", async () => {
    const { expanded, x, raw } = recording();
    const llm = scriptedLlm([x(2), x(10), raw("I cannot help with that.")]);
    const kwargs = { max_buffer_size: 2, num_search_iterations: 3, train_batch_size: 1, evaluation_batch_size: 2 };
    const run = await runTrainer(ucbSearchTrainer, targetBundle(), llm, { kwargs });
    expect(llm.remaining()).toBe(0);
    // T=2 → x0 (the only one); T=5: UCB(x2) = −1 + √(ln5/2) > UCB(x0) = −3 + √(ln5/3); T=8: x0 evicted, x2 again.
    expect(expanded).toEqual([0, 2, 2]);
    expect(perStep(run.iterations, "llm_calls")).toEqual([1, 1, 1]);
    // The initial scoring (2) lands in the first step; the unreadable proposal of step 3 makes a
    // copy of x2, scored like a proposal (parity: ucbsearch).
    expect(perStep(run.iterations, "evaluations")).toEqual([2 + 1 + 2, 1 + 2, 1 + 2]);
    expect(run.iterations.map((it) => it.score)).toEqual([-1, -7, -1]);
    expect(run.iterations.map((it) => it.best_score)).toEqual([-1, -1, -1]);
    expect(run.iterations.map((it) => it.values)).toEqual([{ x: 2 }, { x: 2 }, { x: 2 }]);
    expect(run.iterations[2]!.notes).toEqual([expect.stringMatching(/^iteration 3: no update \(unreadable reply.*\); a copy of the selected candidate is scored instead$/)]);
    expect(run.values).toEqual({ x: 2 });
  });

  it("a larger exploration factor expands a worse but less-evaluated candidate", async () => {
    const runWith = async (factor: number) => {
      const { expanded, x, raw } = recording();
      const llm = scriptedLlm([x(-1), raw("TERMINATE")]);
      const kwargs = { ucb_exploration_factor: factor, num_search_iterations: 2, train_batch_size: 4, evaluation_batch_size: 1 };
      await runTrainer(ucbSearchTrainer, targetBundle(), llm, { kwargs });
      return expanded;
    };
    // After step 1 (T = 6): x0 has mean −3 over 5 evaluations, x−1 mean −4 over 1.
    expect(await runWith(1)).toEqual([0, 0]);
    expect(await runWith(3)).toEqual([0, -1]);
  });

  it("evicts the lowest-UCB candidate when the buffer is full, and returns the best mean of what remains", async () => {
    const llm = scriptedLlm([xmlReply({ x: 10 })]);
    const run = await runTrainer(ucbSearchTrainer, targetBundle(), llm, { kwargs: { max_buffer_size: 1, num_search_iterations: 1 } });
    expect(run.values).toEqual({ x: 10 });
    expect(run.iterations[0]!.best_score).toBe(-7);
  });

  it("uses the reference defaults (train_batch_size 2, evaluation_batch_size 20 capped at the set size)", async () => {
    const llm = scriptedLlm([xmlReply({ x: 1 }), xmlReply({ x: 2 })]);
    const run = await runTrainer(ucbSearchTrainer, targetBundle(), llm, { kwargs: { num_search_iterations: 2 } });
    expect(llm.remaining()).toBe(0);
    expect(perStep(run.iterations, "evaluations")).toEqual([4 + 2 + 4, 2 + 4]);
  });

  it("ucbScore: +∞ for an unvisited candidate, ln T guarded at T = 0", () => {
    expect(ucbScore({ scoreSum: 0, evalCount: 0 }, 10, 1)).toBe(Infinity);
    expect(ucbScore({ scoreSum: -6, evalCount: 2 }, 0, 1)).toBe(-3);
    expect(ucbScore({ scoreSum: -6, evalCount: 2 }, 8, 2)).toBeCloseTo(-3 + 2 * Math.sqrt(Math.log(8) / 2), 12);
  });

  it("the same seed gives the same history", async () => {
    const once = () => runTrainer(ucbSearchTrainer, targetBundle(6), createStubLlm(9), { seed: 9, kwargs: { num_search_iterations: 6, max_buffer_size: 3, evaluation_batch_size: 3 } });
    const [a, b] = [await once(), await once()];
    expect(a.iterations).toHaveLength(6);
    expect(b.iterations).toEqual(a.iterations);
    expect(b.values).toEqual(a.values);
  });
});
