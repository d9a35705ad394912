/**
 * Parity scenario basicsearch-memory (test/fixtures/parity/basicsearch-memory.json): the
 * proposals of a BasicSearchAlgorithm step share one optimizer, so its memory fills up call by
 * call (OptoPrimeV2 memory_size 5). The numpy permutations are replayed.
 */
import { describe, expect, it } from "vitest";
import { basicSearchTrainer } from "../../../../src/opt/trainers/basic-search.js";
import { memoryRoundValues, parityFixture, valueAgent } from "../../../support/parity.js";
import { replayRng } from "../../../support/replay-rng.js";
import { scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { shownValues } from "../../../support/shown-values.js";
import { perStep, runTrainer } from "../../../support/trainer-harness.js";

const fixture = parityFixture<{
  train_kwargs: Record<string, number>;
  optimizer_kwargs: Record<string, number>;
  numpy_draws: { n: number; result: number[] }[];
  calls: { shown: Record<string, string>; optimizer_returned: { value: number }; memory_rounds: number; memory_round_values: Record<string, string>[] }[];
  steps: { step: number; values_after_update: { value: number } }[];
  improvement_checks: { accepted: boolean }[];
  forward_batches: number[][];
  validations: { step_ctx: number; values: { value: number }; xs: number[]; scores: number[] }[];
  logged: { name: string; value: number; step: number }[];
  evaluations: Record<string, number>;
  final: { value: number };
}>("basicsearch-memory");

describe("parity basicsearch-memory", () => {
  it("basicsearch-memory: memory rounds per prompt [0, 1, 2, 3, 4, 5, 5, 5]; picks 2.5 then 2.9; 28 guide calls less the tests", async () => {
    const bundle = valueAgent({ inputs: [0, 1], targets: [3, 3] });
    const llm = scriptedLlm(fixture.calls.map((c) => xmlReply({ value: c.optimizer_returned.value })));
    const rng = replayRng(fixture.numpy_draws);
    const run = await runTrainer(basicSearchTrainer, bundle, llm, { kwargs: fixture.train_kwargs, optimizerKwargs: fixture.optimizer_kwargs, rng });
    expect(llm.remaining()).toBe(0);
    expect(rng.remainingAnswers()).toBe(0);
    expect(llm.requests.map((r) => shownValues(r).value)).toEqual(fixture.calls.map((c) => Number(Object.values(c.shown)[0])));
    const rounds = llm.requests.map(memoryRoundValues);
    expect(rounds.map((r) => r.length)).toEqual(fixture.calls.map((c) => c.memory_rounds));
    expect(rounds.map((r) => r.map((values) => Number(values[0])))).toEqual(fixture.calls.map((c) => c.memory_round_values.map((v) => Number(Object.values(v)[0]))));
    // Validation: 4 proposals and the current value (once, then carried) on both examples.
    const phases = (step: number) => ["forward", "validate", "check"].reduce((sum, phase) => sum + (fixture.evaluations[`step${step}:${phase}`] ?? 0), 0);
    expect(perStep(run.iterations, "evaluations")).toEqual(fixture.steps.map((s) => phases(s.step)));
    expect(fixture.improvement_checks.every((c) => c.accepted)).toBe(true);
    expect(run.iterations.map((it) => it.values)).toEqual(fixture.steps.map((s) => s.values_after_update));
    // The logged validation score of each step is the chosen candidate's.
    const logged = fixture.logged.filter((l) => l.name === "Validation score").map((l) => l.value);
    expect(run.iterations.map((it) => it.score)).toEqual(logged.map((v) => expect.closeTo(v, 12)));
    expect(run.values).toEqual(fixture.final);
  });
});
