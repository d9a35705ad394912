/**
 * Parity scenario ps-proposals-memory: A1, one example (input 0, target 3), OptoPrimeV2
 * memory_size 5, PrioritySearch(batch_size 1, num_steps 3, num_proposals 2). The proposals of one
 * (candidate, batch) pair share one optimizer, so its memory fills with each call and a new
 * candidate inherits it; equal proposals of a pair collapse into one candidate.
 */
import { describe, expect, it } from "vitest";
import { readPrioritySearchOptions } from "../../../../src/opt/trainers/priority-search.js";
import { a1, comparableEvaluations, fixture, label, runRecorded, type RecordedRun } from "./support.js";

const { runs } = fixture<{ runs: Record<string, RecordedRun> }>("ps-proposals-memory");
const memory = { memory_size: 5 };

describe("parity ps-proposals-memory", () => {
  for (const [name, run] of Object.entries(runs)) {
    it(`ps-proposals-memory ${name}: memory rounds per call ${JSON.stringify(run.calls.map((c) => c.memory_rounds))}, final ${run.final.values.value}`, async () => {
      const got = await runRecorded(a1([0], [3]), run.calls, readPrioritySearchOptions(run.train_kwargs, "PrioritySearch"), memory);
      expect(got.remaining).toBe(0);
      expect(got.memoryRounds).toEqual(run.calls.map((c) => c.memory_rounds));
      expect(got.shown).toEqual(run.calls.map((c) => c.shown[0]));
      // Per iteration: the best (label, values, mean, rollouts) and the exploration candidates.
      run.iterations.slice(1).forEach((recorded, i) => {
        const s = got.snapshots[i]!;
        expect({ label: label(s.best.id), values: s.best.values, mean: s.best.mean, rollouts: s.best.rollouts }).toEqual({
          label: recorded.best.label,
          values: recorded.best.values,
          mean: recorded.best.mean_score,
          rollouts: recorded.best.num_rollouts,
        });
        expect(s.exploration.map((c) => label(c.id))).toEqual(recorded.exploration);
      });
      expect(got.values).toEqual(run.final.values);
      expect(got.iterations.at(-1)!.evaluations).toBe(comparableEvaluations(run.evaluations.by_iteration_and_phase));
    });
  }

  it("ps-proposals-memory one_candidate_equal_proposals: the two equal proposals are one candidate with both validation rollouts", async () => {
    const run = runs.one_candidate_equal_proposals!;
    expect(run.calls.slice(0, 2).map((c) => c.returned)).toEqual([{ value: 2 }, { value: 2 }]);
    const got = await runRecorded(a1([0], [3]), run.calls, readPrioritySearchOptions(run.train_kwargs, "PrioritySearch"), memory);
    const first = got.snapshots[0]!;
    // c1 and c2 were both proposed and scored (c2's label is used up), c2 counts as c1.
    expect(first.created.map((c) => [label(c.id), c.values, c.rollouts])).toEqual([["c1", { value: 2 }, 2]]);
    expect(got.iterations[0]).toMatchObject({ llm_calls: 2, evaluations: 3 });
    expect(got.snapshots[1]!.created.map((c) => label(c.id))).toEqual(run.calls.slice(2).map((c) => c.became_candidate));
  });
});
