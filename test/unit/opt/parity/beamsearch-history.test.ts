/**
 * Parity scenario beamsearch-history (test/fixtures/parity/beamsearch-history.json):
 * BeamsearchHistoryAlgorithm on the recorded agent A2 (internal:numeric_param: the float `value`
 * and the code of its trainable op `emit`), OptoPrimeV2 with its defaults (no memory). Every
 * prompt's history lists the kept beams with both parameters under Trace's node names, in each
 * candidate's own key order. The numpy draws are replayed; emit's code is never changed, so the
 * recording's `<code>` stands for its initial source.
 */
import { afterAll, describe, expect, it } from "vitest";
import { builtinTaskRegistry } from "../../../../adapters/tasks/index.js";
import type { ChatRequest } from "../../../../src/llm/llm.js";
import { beamsearchHistoryTrainer } from "../../../../src/opt/trainers/beamsearch-history.js";
import { numericParamAgent, parityFixture } from "../../../support/parity.js";
import { floatReply, graphName, promptFacts, traceName } from "../../../support/prompt-facts.js";
import { replayRng } from "../../../support/replay-rng.js";
import { scriptedLlm } from "../../../support/scripted-llm.js";
import { perStep, runTrainer } from "../../../support/trainer-harness.js";

type Values = { "__code(emit)": string; value: number };
interface History {
  attempt: number;
  score_text: string;
  params: string[];
}
const fixture = parityFixture<{
  train_kwargs: Record<string, number>;
  optimizer_kwargs: Record<string, number>;
  numpy_draws: { n: number; result: number[] }[];
  calls: { ctx: { depth: number }; shown: Record<string, string>; optimizer_returned: { value: number }; memory_rounds: number; history_entries: number; history: History[]; empty_history_marker: boolean }[];
  expansions: { depth: number; beam_values: Values; llm_calls: number; candidates: Values[] }[];
  selections: { depth: number; validation_xs: number[]; candidates: { values: Values; score: number }[]; kept: { values: Values; score: number }[] }[];
  logged: { name: string; value: number; step: number }[];
  evaluations: Record<string, number>;
  final: Values;
}>("beamsearch-history");

const registry = builtinTaskRegistry();
afterAll(() => registry.close());

const userText = (request: ChatRequest) =>
  request.messages
    .filter((m) => m.role === "user")
    .map((m) => m.content)
    .join("\n");

/** "name: value" with the name as the recordings compare it (the name holds a colon, the value follows the first ": "). */
function entryParam(text: string): string {
  const at = text.indexOf(": ");
  return `${traceName(text.slice(0, at))}: ${text.slice(at + 2)}`;
}

/** The history entries a prompt lists, with emit's source written `<code>` as the recording writes it. */
function historyOf(request: ChatRequest, code: string): History[] {
  const user = userText(request).split(code).join("<code>");
  const block = user.slice(user.indexOf("--- History Context ---"));
  return [...block.matchAll(/^ {2}Attempt (\d+) \(Score: (\S+)\): \{(.*)\}$/gm)].map((m) => ({ attempt: Number(m[1]), score_text: m[2]!, params: m[3]!.split(", ").map(entryParam) }));
}

describe("parity beamsearch-history", () => {
  it("beamsearch-history: agent A2, 5 calls (1, 2, 2); history [0, 2, 2, 4, 4] entries listing float and code under Trace names in the stored order; depth 1 keeps both unsorted; final 3.0", async () => {
    const bundle = await numericParamAgent(registry, { inputs: [0, 1], targets: [3, 3] });
    const code = bundle.parameters.find((p) => p.kind === "code")!;
    const float = bundle.parameters.find((p) => p.kind === "number")!;
    const llm = scriptedLlm(fixture.calls.map((c) => floatReply(c.optimizer_returned.value)));
    const rng = replayRng(fixture.numpy_draws);
    const run = await runTrainer(beamsearchHistoryTrainer, bundle, llm, { kwargs: fixture.train_kwargs, optimizerKwargs: fixture.optimizer_kwargs, rng });
    expect(llm.remaining()).toBe(0);
    expect(rng.remainingAnswers()).toBe(0);

    // Each prompt shows the beam it expands (the float and emit's code) and no memory rounds.
    const facts = llm.requests.map(promptFacts);
    expect(facts.map((f) => f.variables.map((v) => [v.name, v.value]))).toEqual(fixture.calls.map((c) => Object.entries(c.shown).map(([name, value]) => [graphName(name), value])));
    expect(fixture.expansions.flatMap((e) => Array.from({ length: e.llm_calls }, () => e.beam_values.value))).toEqual(fixture.calls.map((c) => Number(Object.values(c.shown)[0])));
    expect(facts.map((f) => f.memory_rounds)).toEqual(fixture.calls.map((c) => c.memory_rounds));

    // The history: entry counts, attempt numbers, scores and every parameter, in the reference's order.
    const histories = llm.requests.map((r) => historyOf(r, code.value as string));
    expect(histories.map((h) => h.length)).toEqual(fixture.calls.map((c) => c.history_entries));
    expect(histories).toEqual(fixture.calls.map((c) => c.history.map((h) => ({ ...h, params: h.params.map(entryParam) }))));
    // The first prompt carries the history block with its "nothing yet" line; every prompt has the block.
    expect(llm.requests.map((r) => userText(r).includes("(Nothing has been kept yet.)"))).toEqual(fixture.calls.map((c) => c.empty_history_marker));
    expect(llm.requests.every((r) => userText(r).includes("--- History Context ---"))).toBe(true);
    // The buffer size logged after a depth is what the next depth's prompts list.
    for (const logged of fixture.logged.filter((l) => l.name === "History buffer size" && l.step < fixture.train_kwargs.max_depth!)) {
      expect(histories[fixture.calls.findIndex((c) => c.ctx.depth === logged.step + 1)]).toHaveLength(logged.value);
    }

    // Agent calls: each expansion runs its beam on a batch; each selection runs the candidates
    // (proposals, then the beam) on the depth's validation minibatch, then the final one on the
    // full validate set. Emit's code is never changed.
    const expected = fixture.selections.flatMap((s) => [
      ...fixture.expansions.filter((e) => e.depth === s.depth).flatMap((e) => Array.from({ length: fixture.train_kwargs.batch_size! }, () => ({ value: e.beam_values.value }))),
      ...s.candidates.flatMap((c) => s.validation_xs.map((x) => ({ value: c.values.value, x }))),
    ]);
    expect(bundle.calls.map((c, i) => ("x" in expected[i]! ? { value: c.values[float.name], x: c.input } : { value: c.values[float.name] }))).toEqual(expected);
    expect(new Set([...fixture.selections.flatMap((s) => s.candidates.map((c) => c.values["__code(emit)"])), fixture.final["__code(emit)"]]).size).toBe(1);
    expect(bundle.calls.every((c) => c.values[code.name] === code.value)).toBe(true);

    const depths = [...new Set(Object.keys(fixture.evaluations).map((k) => Number(/^depth(\d+)/.exec(k)![1])))];
    expect(perStep(run.iterations, "evaluations")).toEqual(depths.map((d) => (fixture.evaluations[`depth${d}:expand`] ?? 0) + fixture.evaluations[`depth${d}:select`]!));
    // Each depth reports its best kept beam, the final step the pick on the full validate set.
    expect(run.iterations.map((it) => (it.values as Record<string, unknown>)[float.name])).toEqual(fixture.selections.map((s) => s.kept[0]!.values.value));
    expect(run.iterations.map((it) => it.score)).toEqual(fixture.logged.filter((l) => l.name !== "History buffer size").map((l) => expect.closeTo(l.value, 12)));
    expect(run.values).toEqual({ [code.name]: code.value, [float.name]: fixture.final.value });
  });
});
