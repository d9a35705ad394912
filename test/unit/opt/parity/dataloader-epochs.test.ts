/**
 * Parity scenario dataloader-epochs (test/fixtures/parity/dataloader-epochs.json): steps and
 * batches at epoch boundaries. When the loader runs out mid-batch it fills the batch from a new
 * permutation and ends the epoch; the next epoch starts from yet another permutation. The numpy
 * permutations are replayed (our generator cannot draw numpy's numbers).
 */
import { describe, expect, it } from "vitest";
import { minibatchAlgorithmTrainer } from "../../../../src/opt/trainers/minibatch.js";
import { prioritySearchTrainer } from "../../../../src/opt/trainers/priority-search.js";
import { inputsIn, parityFixture, valueAgent } from "../../../support/parity.js";
import { replayRng } from "../../../support/replay-rng.js";
import { scriptedLlm } from "../../../support/scripted-llm.js";
import { perStep, runTrainer } from "../../../support/trainer-harness.js";

interface MinibatchRun {
  train_kwargs: { batch_size: number; num_epochs: number; num_threads: number };
  numpy_draws: { n: number; result: number[] }[];
  forward_batches: number[][];
  total_calls: number;
  evaluations: Record<string, number>;
  final: { value: number };
}
const fixture = parityFixture<{
  minibatch: Record<string, MinibatchRun>;
  priority_search_budgets: { N: number; batch_size: number; num_batches: number; num_epochs: number; num_steps: number; iterations_run: number; proposing_iterations: number; llm_calls: number }[];
}>("dataloader-epochs");

describe("parity dataloader-epochs: MinibatchAlgorithm steps and batches", () => {
  for (const [name, run] of Object.entries(fixture.minibatch)) {
    it(`dataloader-epochs ${name}: ${run.forward_batches.length} steps with the recorded batches, every batch full`, async () => {
      const n = run.numpy_draws[0]!.n;
      const bundle = valueAgent({ inputs: Array.from({ length: n }, (_, i) => i), targets: Array.from({ length: n }, () => 3) });
      const llm = scriptedLlm(Array.from({ length: run.total_calls }, () => "TERMINATE"));
      const rng = replayRng(run.numpy_draws);
      const result = await runTrainer(minibatchAlgorithmTrainer, bundle, llm, { kwargs: run.train_kwargs, rng });
      expect(llm.remaining()).toBe(0);
      expect(result.iterations).toHaveLength(run.forward_batches.length);
      expect(perStep(result.iterations, "llm_calls")).toEqual(run.forward_batches.map(() => 1));
      // Every evaluation is the forward pass (no update, so no improvement check): the recorded
      // forward counts per step. The reference's test evaluations feed its logger only.
      const forward = run.forward_batches.map((_, step) => run.evaluations[`step${step}:forward`]);
      expect(perStep(result.iterations, "evaluations")).toEqual(forward);
      const batchSize = run.train_kwargs.batch_size;
      const batches = run.forward_batches.map((_, step) => inputsIn(bundle.calls, step * batchSize, (step + 1) * batchSize));
      expect(batches).toEqual(run.forward_batches);
      // The permutation drawn at the last epoch's end included: every recorded draw was made.
      expect(rng.remainingAnswers()).toBe(0);
      expect(result.values).toEqual(run.final);
    });
  }
});

describe("parity dataloader-epochs: PrioritySearch budgets", () => {
  for (const c of fixture.priority_search_budgets) {
    const label = `(N ${c.N}, batch ${c.batch_size}, num_batches ${c.num_batches}, epochs ${c.num_epochs}, steps ${c.num_steps})`;
    it(`dataloader-epochs PrioritySearch ${label}: ${c.iterations_run} iterations, ${c.proposing_iterations} proposing, ${c.llm_calls} LLM calls`, async () => {
      const bundle = valueAgent({ inputs: Array.from({ length: c.N }, (_, i) => i), targets: Array.from({ length: c.N }, () => 3) });
      const llm = scriptedLlm(Array.from({ length: c.llm_calls }, () => "TERMINATE"));
      const kwargs = { batch_size: c.batch_size, num_batches: c.num_batches, num_epochs: c.num_epochs, num_steps: c.num_steps, num_candidates: 1, num_proposals: 1, num_threads: 1 };
      const result = await runTrainer(prioritySearchTrainer, bundle, llm, { kwargs });
      expect(llm.remaining()).toBe(0);
      // The emitted iterations are the proposing ones; iteration 0 (no LLM call) runs whenever any does.
      expect(result.iterations).toHaveLength(c.proposing_iterations);
      expect(c.iterations_run).toBe(c.iterations_run === 0 ? 0 : c.proposing_iterations + 1);
    });
  }
});
