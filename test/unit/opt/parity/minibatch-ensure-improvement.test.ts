/**
 * Parity scenario minibatch-ensure-improvement (test/fixtures/parity/minibatch-ensure-improvement.json):
 * MinibatchAlgorithm's improvement check with the defaults (ensure_improvement, threshold 0,
 * batch 1, 1 epoch). The numpy permutations are replayed.
 */
import { describe, expect, it } from "vitest";
import { minibatchAlgorithmTrainer } from "../../../../src/opt/trainers/minibatch.js";
import { inputsIn, parityFixture, valueAgent } from "../../../support/parity.js";
import { replayRng } from "../../../support/replay-rng.js";
import { scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { shownValues } from "../../../support/shown-values.js";
import { perStep, runTrainer } from "../../../support/trainer-harness.js";

interface Run {
  train_kwargs: Record<string, number>;
  numpy_draws: { n: number; result: number[] }[];
  calls: { shown: Record<string, string>; optimizer_returned: { value: number } }[];
  steps: { step: number; batch_score: number; values_before: { value: number }; values_after_update: { value: number } }[];
  improvement_checks: { step: number; batch_score_before: number; proposed_values: { value: number }; accepted: boolean }[];
  forward_batches: number[][];
  evaluations: Record<string, number>;
  final: { value: number };
}
const { runs } = parityFixture<{ runs: Record<string, Run> }>("minibatch-ensure-improvement");

describe("parity minibatch-ensure-improvement", () => {
  it("minibatch-ensure-improvement tie_accept_tie: a tie is rejected (6.0 and 4.0), an improvement accepted; final 2.0", async () => {
    const run = runs.tie_accept_tie!;
    const bundle = valueAgent({ inputs: [0, 1, 2], targets: [3, 3, 3] });
    const llm = scriptedLlm(run.calls.map((c) => xmlReply({ value: c.optimizer_returned.value })));
    const rng = replayRng(run.numpy_draws);
    const result = await runTrainer(minibatchAlgorithmTrainer, bundle, llm, { kwargs: run.train_kwargs, rng });
    expect(llm.remaining()).toBe(0);
    expect(rng.remainingAnswers()).toBe(0);
    // The values each prompt showed.
    expect(llm.requests.map((r) => shownValues(r).value)).toEqual(run.calls.map((c) => Number(c.shown[Object.keys(c.shown)[0]!])));
    // Per step: the forward batch, then the check of the proposal on the same batch.
    expect(perStep(result.iterations, "evaluations")).toEqual(run.steps.map((s) => run.evaluations[`step${s.step}:forward`]! + run.evaluations[`step${s.step}:check`]!));
    expect(run.forward_batches.map((_, step) => inputsIn(bundle.calls, 2 * step, 2 * step + 1))).toEqual(run.forward_batches);
    const checks = run.improvement_checks;
    expect(checks.map((c) => c.accepted)).toEqual([false, true, false]);
    expect(result.iterations.map((it) => it.values)).toEqual(checks.map((c, i) => (c.accepted ? c.proposed_values : run.steps[i]!.values_before)));
    expect(result.iterations.map((it) => it.notes !== undefined)).toEqual(checks.map((c) => !c.accepted));
    expect(result.values).toEqual(run.final);
  });

  it("minibatch-ensure-improvement all_crash_check (deliberate difference): an update that crashes on the whole check batch is rejected", async () => {
    // The reference compares the NaN mean of an all-crash check, which is never ≤, so it keeps
    // 10.0, a value that crashes everywhere (recorded final 10.0). We reject it; step 1 then
    // proposes 2.0 from 0.0, which improves on the batch (−1 > −3) and is kept.
    const run = runs.all_crash_check!;
    expect(run.improvement_checks[0]!.accepted).toBe(true);
    expect(run.final).toEqual({ value: 10 });
    const bundle = valueAgent({ inputs: [0], targets: [3] }, (value) => value > 5);
    const llm = scriptedLlm(run.calls.map((c) => xmlReply({ value: c.optimizer_returned.value })));
    const result = await runTrainer(minibatchAlgorithmTrainer, bundle, llm, { kwargs: run.train_kwargs, rng: replayRng(run.numpy_draws) });
    expect(result.iterations.map((it) => it.values)).toEqual([{ value: 0 }, { value: 2 }]);
    expect(result.values).toEqual({ value: 2 });
  });

  it("minibatch-ensure-improvement all_crash_check: a crashed training rollout scores 0 in the forward pass", async () => {
    // Step 1 of the recorded run: the forward on 10.0 crashes and the batch score is 0, so 2.0
    // (−1) does not improve on it and is rejected.
    const run = runs.all_crash_check!;
    expect(run.steps[1]!.batch_score).toBe(0);
    expect(run.improvement_checks[1]).toMatchObject({ batch_score_before: 0, accepted: false });
    const bundle = valueAgent({ inputs: [0], targets: [3] }, (value) => value > 5);
    // Start from the crashing 10.0 (the value the reference holds at step 1).
    const crashing = { ...bundle, parameters: [{ ...bundle.parameters[0]!, value: 10 }] };
    const llm = scriptedLlm([xmlReply({ value: 2 })]);
    const result = await runTrainer(minibatchAlgorithmTrainer, crashing, llm, { kwargs: { num_threads: 1 } });
    expect(result.iterations[0]!.score).toBe(0);
    expect(result.iterations[0]!.notes).toEqual([expect.stringContaining("update rejected")]);
    expect(result.values).toEqual({ value: 10 });
  });
});
