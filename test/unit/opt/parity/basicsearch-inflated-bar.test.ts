/**
 * Parity scenario basicsearch-inflated-bar (test/fixtures/parity/basicsearch-inflated-bar.json):
 * when the improvement check reverts BasicSearchAlgorithm's chosen proposal, the proposal's
 * validation score stays the bar the next step's candidates must beat.
 */
import { describe, expect, it } from "vitest";
import { basicSearchTrainer } from "../../../../src/opt/trainers/basic-search.js";
import { parityFixture, valueAgent } from "../../../support/parity.js";
import { replayRng } from "../../../support/replay-rng.js";
import { scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { perStep, runTrainer } from "../../../support/trainer-harness.js";

const fixture = parityFixture<{
  train_kwargs: Record<string, number>;
  numpy_draws: { n: number; result: number[] }[];
  calls: { optimizer_returned: { value: number } }[];
  steps: { step: number; values_before: { value: number }; values_after_update: { value: number } }[];
  improvement_checks: { step: number; proposed_values: { value: number }; accepted: boolean }[];
  validations: { step_ctx: number; values: { value: number }; xs: number[]; scores: number[] }[];
  logged: { name: string; value: number; step: number }[];
  evaluations: Record<string, number>;
  final: { value: number };
}>("basicsearch-inflated-bar");

describe("parity basicsearch-inflated-bar", () => {
  it("basicsearch-inflated-bar: 8.0 is reverted but its validation score −2 stays the bar, so 5.0 (−5) is not taken; final 0.0", async () => {
    const bundle = valueAgent({ inputs: [0], targets: [3], validate: { inputs: [1], targets: [10] } });
    const llm = scriptedLlm(fixture.calls.map((c) => xmlReply({ value: c.optimizer_returned.value })));
    const run = await runTrainer(basicSearchTrainer, bundle, llm, { kwargs: fixture.train_kwargs, rng: replayRng(fixture.numpy_draws) });
    expect(llm.remaining()).toBe(0);
    // The agent calls other than the forward passes (input 0) and the checks are the validations.
    const validations = bundle.calls.filter((c) => c.input === 1).map((c) => ({ values: c.values, xs: [c.input] }));
    expect(validations).toEqual(fixture.validations.map((v) => ({ values: v.values, xs: v.xs })));
    expect(fixture.improvement_checks).toEqual([expect.objectContaining({ step: 0, proposed_values: { value: 8 }, accepted: false })]);
    const phases = (step: number) => ["forward", "validate", "check"].reduce((sum, phase) => sum + (fixture.evaluations[`step${step}:${phase}`] ?? 0), 0);
    expect(perStep(run.iterations, "evaluations")).toEqual(fixture.steps.map((s) => phases(s.step)));
    // The logged validation score is the bar: −2 at both steps.
    const logged = fixture.logged.filter((l) => l.name === "Validation score").map((l) => l.value);
    expect(run.iterations.map((it) => it.score)).toEqual(logged);
    expect(run.iterations.map((it) => it.values)).toEqual([fixture.steps[0]!.values_before, fixture.steps[1]!.values_after_update]);
    expect(run.values).toEqual(fixture.final);
  });
});
