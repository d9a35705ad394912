/**
 * Parity scenario streaming-priority-search. The reference raises ValueError at iteration 1 with
 * its defaults and with num_candidates 2 (equal initial copies collapse and a sampled rollout's
 * candidate is not found), before any LLM call; with num_candidates 1 it adopts every newest
 * proposal unscored (a missing mean counts as 0) and ends on 40.0, scoring −37. Its evident intent,
 * which we do (a deliberate difference): new candidates are explored next, so they get scored, and
 * the best is the best mean among scored candidates.
 */
import { describe, expect, it } from "vitest";
import { readStreamingOptions } from "../../../../src/opt/trainers/streaming-priority-search.js";
import { a1, fixture, label, runRecorded, type RecordedRun } from "./support.js";

const { runs } = fixture<{ runs: Record<string, RecordedRun & { error?: string; llm_calls?: number }> }>("streaming-priority-search");

describe("parity streaming-priority-search", () => {
  // K = num_candidates · exploration_ratio / num_proposals pairs are improved: 10·0.5 = 5 and 2·1.0 = 2.
  for (const [name, calls] of [["defaults", 5], ["num_candidates_2", 2]] as const) {
    it(`streaming-priority-search ${name}: the reference raises before any call; we make ${calls} calls`, async () => {
      const run = runs[name]!;
      expect([run.error, run.llm_calls]).toEqual(["ValueError", 0]);
      const options = readStreamingOptions(run.train_kwargs);
      // One proposing iteration (num_steps 2).
      const script = Array.from({ length: calls }, (_, i) => ({ memory_rounds: 0, shown: [0], returned: { value: 1 + i }, became_candidate: null }));
      const got = await runRecorded(a1([0], [3]), script, options);
      expect(got.remaining).toBe(0);
      expect(got.snapshots).toHaveLength(1);
      expect(got.snapshots[0]!.created).toHaveLength(calls);
    });
  }

  it("streaming-priority-search num_candidates_1: the same 3 calls on the values the reference shows, but every proposal is scored before it can be best (final 2.9, not 40.0)", async () => {
    const run = runs.num_candidates_1!;
    expect(run.final.values).toEqual({ value: 40 });
    const got = await runRecorded(a1([0], [3]), run.calls, readStreamingOptions(run.train_kwargs));
    expect(got.remaining).toBe(0);
    // Each iteration explores the newest proposal, as the reference does: prompts show 0, 2.9, 50.
    expect(got.shown).toEqual(run.calls.map((c) => c.shown[0]));
    expect(got.snapshots.map((s) => s.exploration.map((c) => label(c.id)))).toEqual(run.iterations.slice(1).map((it) => it.exploration));
    // …but the best is the best scored candidate: 2.9 (−0.1), where the reference adopts 50 then 40 unscored.
    expect(got.snapshots.map((s) => s.best.values.value)).toEqual([0, 2.9, 2.9]);
    expect(got.values).toEqual({ value: 2.9 });
  });
});
