import { describe, expect, it } from "vitest";
import { createStubLlm } from "../../../../adapters/llm/stub-llm.js";
import type { ChatRequest } from "../../../../src/llm/llm.js";
import { runPrioritySearch, type IterationSnapshot } from "../../../../src/opt/trainers/priority-search.js";
import { beamSearchTrainer, readPresetOptions, sequentialSearchTrainer, sequentialUpdateTrainer } from "../../../../src/opt/trainers/priority-search-presets.js";
import { scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { shownValues } from "../../../support/shown-values.js";
import { valueAgent } from "../../../support/parity.js";
import { harnessContext, runTrainer } from "../../../support/trainer-harness.js";

/** One float `value` (0.0) with target 3.0: numeric_param's search problem as an untraced agent, so prompts name it `value`. */
const numericParam = async () => valueAgent({ inputs: [null], targets: [3.0] });
const reply = (value: number) => xmlReply({ value });
const steps = { num_epochs: 0, num_steps: 3 };

const shownValue = (request: ChatRequest) => shownValues(request).value;

describe("PrioritySearch presets", () => {
  it("have the ids and kwargs the catalog expects", () => {
    expect([sequentialUpdateTrainer.id, sequentialSearchTrainer.id, beamSearchTrainer.id]).toEqual(["SequentialUpdate", "SequentialSearch", "BeamSearch"]);
    expect(beamSearchTrainer.kwargs).toEqual(expect.arrayContaining(["memory_size", "default_score", "validate_proposals"]));
  });

  it("SequentialUpdate: one proposal per step, kept only when it scores better (≈ ensure_improvement)", async () => {
    const llm = scriptedLlm([reply(5), reply(8)]);
    const run = await runTrainer(sequentialUpdateTrainer, await numericParam(), llm, { kwargs: { ...steps, num_candidates: 3 } });
    expect(llm.requests.map(shownValue)).toEqual([0, 5]);
    expect(run.iterations.map((i) => [i.step, i.llm_calls, i.evaluations, i.score, i.values])).toEqual([
      [1, 1, 2, -2, { value: 5 }],
      [2, 2, 4, -2, { value: 5 }],
    ]);
    expect(run.iterations[0]!.notes).toEqual(["SequentialUpdate: num_candidates is fixed to 1 (got 3)"]);
    expect(run.values).toEqual({ value: 5 });
  });

  it("SequentialUpdate with validate_proposals false adopts every proposal unvalidated", async () => {
    const llm = scriptedLlm([reply(5), reply(8)]);
    const run = await runTrainer(sequentialUpdateTrainer, await numericParam(), llm, { kwargs: { ...steps, validate_proposals: false } });
    expect(llm.requests.map(shownValue)).toEqual([0, 5]);
    // Only the exploration rollouts run (B·K per step).
    expect(run.iterations.map((i) => [i.llm_calls, i.evaluations, i.values])).toEqual([
      [1, 1, { value: 5 }],
      [2, 2, { value: 8 }],
    ]);
  });

  it("SequentialSearch: several proposals per step, the best survives", async () => {
    const llm = scriptedLlm([reply(1), reply(2.5), reply(6)]);
    const run = await runTrainer(sequentialSearchTrainer, await numericParam(), llm, { kwargs: { num_epochs: 0, num_steps: 2, num_proposals: 3 } });
    expect(run.iterations).toMatchObject([{ llm_calls: 3, evaluations: 4, score: -0.5, values: { value: 2.5 } }]);
    expect(readPresetOptions({}, "SequentialSearch").options).toMatchObject({ numCandidates: 1, numProposals: 1, longTermMemorySize: 1 });
  });

  it("BeamSearch: keeps the top num_candidates beams and expands each of them", async () => {
    const llm = scriptedLlm([reply(1), reply(2.5), reply(4), reply(3.5), reply(3.1), reply(6), reply(3), reply(7)]);
    const run = await runTrainer(beamSearchTrainer, await numericParam(), llm, { kwargs: { ...steps, num_candidates: 2, num_proposals: 2 } });
    expect(llm.remaining()).toBe(0);
    // Iteration 2 expands the two best beams (3.5 and 2.5, both −0.5; the newer first), not the
    // initial agent; calls go in rounds (proposal 1 of each beam, then proposal 2).
    expect(llm.requests.map(shownValue)).toEqual([0, 0, 0, 0, 3.5, 2.5, 3.5, 2.5]);
    expect(run.iterations.map((i) => [i.llm_calls, i.evaluations])).toEqual([
      [4, 6],
      [8, 12],
    ]);
    expect(run.values).toEqual({ value: 3 });
    expect(readPresetOptions({ num_candidates: 3 }, "BeamSearch").options).toMatchObject({ numCandidates: 3, longTermMemorySize: 3, shortTermMemorySize: 3 });
  });

  it("keep their memory bound with the stub LLM: one candidate carried (SequentialUpdate/Search) or num_candidates (BeamSearch), the best of them", async () => {
    for (const [preset, beam] of [["SequentialUpdate", 1], ["SequentialSearch", 1], ["BeamSearch", 2]] as const) {
      const kwargs = { num_epochs: 0, num_steps: 5, num_candidates: 2, num_proposals: 2 };
      const snapshots: IterationSnapshot[] = [];
      const { context } = harnessContext(await numericParam(), createStubLlm(2), { kwargs });
      const result = await runPrioritySearch(context, readPresetOptions(kwargs, preset).options, (s) => snapshots.push(s));
      expect(snapshots, preset).toHaveLength(4);
      const score = (values: Record<string, unknown>) => -Math.abs(Number(values.value) - 3);
      for (const s of snapshots) {
        // The candidates kept are exactly the ones explored next (memory emptied by the pops).
        expect(s.exploration, preset).toHaveLength(beam);
        expect(s.longTermMemorySize + s.shortTermMemorySize, preset).toBe(0);
        // They are the best `beam` of everything explored or created this iteration.
        const pool = [...s.explored, ...s.created].map((c) => score(c.values)).sort((a, b) => b - a);
        expect(s.exploration.map((c) => score(c.values)).sort((a, b) => b - a), preset).toEqual(pool.slice(0, beam));
      }
      expect(score(result.values), preset).toBe(Math.max(...snapshots.at(-1)!.exploration.map((c) => score(c.values))));
    }
  });
});
