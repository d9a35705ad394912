/**
 * Parity scenario ps-crash: A1 whose emit raises when value > 5 and x == 1; train inputs [0, 1],
 * targets [10, 10]; PrioritySearch(batch_size 2, num_steps 2, num_candidates 1, num_proposals 2);
 * replies 10.0 then 4.0. A crashed rollout scores the bottom of score_range: −∞ by default, so the
 * crashing 10.0 can never be best; −10 with score_range [−10, 0], so it wins (mean −5 > −6).
 */
import { describe, expect, it } from "vitest";
import { readPrioritySearchOptions } from "../../../../src/opt/trainers/priority-search.js";
import { a1, comparableEvaluations, fixture, label, pyNumber, runRecorded, type RecordedRun } from "./support.js";

interface Run extends RecordedRun {
  readonly memory_after_last: { label: string; values: { value: number }; mean_score: number | string | null; num_rollouts: number }[];
}
const { runs } = fixture<{ runs: Record<string, Run> }>("ps-crash");

const bundle = () => a1([0, 1], [10, 10], { crashes: (value, x) => value > 5 && x === 1 });

describe("parity ps-crash", () => {
  for (const [name, run] of Object.entries(runs)) {
    it(`ps-crash ${name}: ${run.calls.length} calls, final ${run.final.values.value}, candidate means as recorded`, async () => {
      const got = await runRecorded(bundle(), run.calls, readPrioritySearchOptions(run.train_kwargs, "PrioritySearch"));
      expect(got.remaining).toBe(0);
      expect(got.requests).toHaveLength(run.calls.length);
      expect(got.memoryRounds).toEqual(run.calls.map((c) => c.memory_rounds));
      expect(got.shown).toEqual(run.calls.map((c) => c.shown[0]));
      // Every candidate the reference ended with: its values, mean (−∞ for a crash) and rollout count.
      const last = got.snapshots.at(-1)!;
      const ours = new Map([...last.explored, ...last.created].map((c) => [label(c.id), c]));
      for (const recorded of run.memory_after_last) {
        const c = ours.get(recorded.label);
        expect(c, recorded.label).toBeDefined();
        expect(c!.values).toEqual(recorded.values);
        expect(c!.mean).toBe(pyNumber(recorded.mean_score));
        expect(c!.rollouts).toBe(recorded.num_rollouts);
      }
      const best = run.iterations.at(-1)!.best;
      expect(label(last.best.id)).toBe(best.label);
      expect(got.values).toEqual(run.final.values);
      // The test score the reference logged last is the final agent's mean on the train set.
      const test = run.tests.at(-1)!.score;
      expect(last.best.mean).toBe(test);
      // Agent calls (crashed ones included), counted the way our trainer counts them.
      expect(got.iterations.at(-1)!.evaluations).toBe(comparableEvaluations(run.agent_forward!.by_iteration_and_phase));
    });
  }

  it("ps-crash default_score_range: the crashing candidate's mean is −∞ and the iteration reports 4.0 (−6) as best", async () => {
    const run = runs.default_score_range!;
    const got = await runRecorded(bundle(), run.calls, readPrioritySearchOptions(run.train_kwargs, "PrioritySearch"));
    const c1 = got.snapshots[0]!.created.find((c) => c.values.value === 10)!;
    expect(c1.mean).toBe(-Infinity);
    expect(got.iterations[0]).toMatchObject({ score: -6, best_score: -6, values: { value: 4 } });
  });
});
