/**
 * Parity scenario beamsearch (test/fixtures/parity/beamsearch.json): BeamsearchAlgorithm with one
 * optimizer for the whole run (OptoPrimeV2 memory_size 5), a stable sort on ties and the final
 * pick on the full validate set. The numpy draws are replayed.
 */
import { describe, expect, it } from "vitest";
import { beamsearchTrainer } from "../../../../src/opt/trainers/beamsearch.js";
import { memoryRoundValues, parityFixture, valueAgent } from "../../../support/parity.js";
import { replayRng } from "../../../support/replay-rng.js";
import { scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { shownValues } from "../../../support/shown-values.js";
import { perStep, runTrainer } from "../../../support/trainer-harness.js";

type Values = { value: number };
const fixture = parityFixture<{
  train_kwargs: Record<string, number>;
  optimizer_kwargs: Record<string, number>;
  numpy_draws: { n: number; result: number[] }[];
  calls: { shown: Record<string, string>; optimizer_returned: Values; memory_rounds: number; memory_round_values: Record<string, string>[] }[];
  expansions: { depth: number; beam: number; beam_values: Values; llm_calls: number; candidates: Values[] }[];
  selections: { depth: number; kept: { values: Values; score: number }[] }[];
  logged: { name: string; value: number; step: number }[];
  evaluations: Record<string, number>;
  final: Values;
}>("beamsearch");

describe("parity beamsearch", () => {
  it("beamsearch: 6 calls with memory rounds [0..5] from one optimizer; depth 2 keeps [3.0, 4.0] (tie to the earlier); final 3.0", async () => {
    const bundle = valueAgent({ inputs: [0, 1], targets: [3, 3] });
    const llm = scriptedLlm(fixture.calls.map((c) => xmlReply({ value: c.optimizer_returned.value })));
    const rng = replayRng(fixture.numpy_draws);
    const run = await runTrainer(beamsearchTrainer, bundle, llm, { kwargs: fixture.train_kwargs, optimizerKwargs: fixture.optimizer_kwargs, rng });
    expect(llm.remaining()).toBe(0);
    expect(rng.remainingAnswers()).toBe(0);
    // Each call shows the beam it expands: the beams of each depth, in kept order.
    expect(llm.requests.map((r) => shownValues(r).value)).toEqual(fixture.calls.map((c) => Number(Object.values(c.shown)[0])));
    expect(fixture.expansions.flatMap((e) => Array.from({ length: e.llm_calls }, () => e.beam_values.value))).toEqual(llm.requests.map((r) => shownValues(r).value));
    const rounds = llm.requests.map(memoryRoundValues);
    expect(rounds.map((r) => r.length)).toEqual(fixture.calls.map((c) => c.memory_rounds));
    expect(rounds.map((r) => r.map((values) => Number(values[0])))).toEqual(fixture.calls.map((c) => c.memory_round_values.map((v) => Number(Object.values(v)[0]))));
    // Per depth: the forward passes of the expansions and the selection; then the final pick.
    const depths = [...new Set(Object.keys(fixture.evaluations).map((k) => Number(/^depth(\d+)/.exec(k)![1])))];
    expect(perStep(run.iterations, "evaluations")).toEqual(depths.map((d) => (fixture.evaluations[`depth${d}:expand`] ?? 0) + fixture.evaluations[`depth${d}:select`]!));
    // Each depth reports its best kept beam; the final step the pick on the full validate set.
    expect(run.iterations.map((it) => it.values)).toEqual(fixture.selections.map((s) => s.kept[0]!.values));
    expect(run.iterations.map((it) => it.score)).toEqual(fixture.logged.map((l) => l.value));
    // The final selection scores the last kept beams in order: [3.0, 4.0] on both examples.
    const finalCalls = bundle.calls.slice(-4).map((c) => c.values);
    expect(finalCalls).toEqual(fixture.selections[1]!.kept.flatMap((k) => [k.values, k.values]));
    expect(run.values).toEqual(fixture.final);
  });
});
