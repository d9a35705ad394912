/**
 * Parity scenario beamsearch-history (test/fixtures/parity/beamsearch-history.json):
 * BeamsearchHistoryAlgorithm's history of kept beams, shown to the optimizer. The recorded agent
 * is A2 (numeric_param, whose traced `emit` is a second, code parameter); this port has no Trace
 * graph yet, so the test runs A1 (the value alone) and compares the value and score of each
 * history entry, not the code parameter or the Trace names. The numpy draws are replayed.
 */
import { describe, expect, it } from "vitest";
import { beamsearchHistoryTrainer } from "../../../../src/opt/trainers/beamsearch-history.js";
import type { ChatRequest } from "../../../../src/llm/llm.js";
import { parityFixture, valueAgent } from "../../../support/parity.js";
import { replayRng } from "../../../support/replay-rng.js";
import { scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { shownValues } from "../../../support/shown-values.js";
import { perStep, runTrainer } from "../../../support/trainer-harness.js";

type Values = { value: number };
const fixture = parityFixture<{
  train_kwargs: Record<string, number>;
  numpy_draws: { n: number; result: number[] }[];
  calls: { shown: Record<string, string>; optimizer_returned: Values; history_entries: number; empty_history_marker: boolean; history: { attempt: number; score_text: string; params: string[] }[] }[];
  selections: { depth: number; kept: { values: Values; score: number }[] }[];
  logged: { name: string; value: number; step: number }[];
  evaluations: Record<string, number>;
  final: Values;
}>("beamsearch-history");

/** The history entries a prompt lists: attempt number, score text and the value's text. */
function historyOf(request: ChatRequest) {
  const user = request.messages.filter((m) => m.role === "user").map((m) => m.content).join("\n");
  return [...user.matchAll(/Attempt (\d+) \(Score: (-?[\d.]+)\): \{value: (-?[\d.]+)\}/g)].map((m) => ({ attempt: Number(m[1]), score_text: m[2], value: m[3] }));
}

describe("parity beamsearch-history", () => {
  it("beamsearch-history: 5 calls (1, 2, 2); history shown [0, 2, 2, 4, 4] entries; depth 1 keeps both unsorted; final 3.0", async () => {
    const bundle = valueAgent({ inputs: [0, 1], targets: [3, 3] });
    const llm = scriptedLlm(fixture.calls.map((c) => xmlReply({ value: c.optimizer_returned.value })));
    const rng = replayRng(fixture.numpy_draws);
    const run = await runTrainer(beamsearchHistoryTrainer, bundle, llm, { kwargs: fixture.train_kwargs, rng });
    expect(llm.remaining()).toBe(0);
    expect(rng.remainingAnswers()).toBe(0);
    const floatShown = (c: (typeof fixture.calls)[number]) => Number(Object.entries(c.shown).find(([name]) => name.startsWith("float"))![1]);
    expect(llm.requests.map((r) => shownValues(r).value)).toEqual(fixture.calls.map(floatShown));
    const histories = llm.requests.map(historyOf);
    expect(histories.map((h) => h.length)).toEqual(fixture.calls.map((c) => c.history_entries));
    const recorded = fixture.calls.map((c) =>
      c.history.map((h) => ({ attempt: h.attempt, score_text: h.score_text, value: h.params.find((p) => p.startsWith("float"))!.replace(/^float:\d+: /, "") })),
    );
    expect(histories).toEqual(recorded);
    // The first prompt carries the history block with its "nothing yet" line.
    expect(fixture.calls[0]!.empty_history_marker).toBe(true);
    expect(llm.requests[0]!.messages.some((m) => m.content.includes("--- History Context ---"))).toBe(true);
    const depths = [...new Set(Object.keys(fixture.evaluations).map((k) => Number(/^depth(\d+)/.exec(k)![1])))];
    expect(perStep(run.iterations, "evaluations")).toEqual(depths.map((d) => (fixture.evaluations[`depth${d}:expand`] ?? 0) + fixture.evaluations[`depth${d}:select`]!));
    expect(run.iterations.map((it) => it.score)).toEqual(fixture.logged.filter((l) => l.name !== "History buffer size").map((l) => expect.closeTo(l.value, 12)));
    expect(run.values).toEqual({ value: fixture.final.value });
  });
});
