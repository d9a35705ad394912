import { describe, expect, it } from "vitest";
import { createStubLlm } from "../../../../adapters/llm/stub-llm.js";
import type { ChatRequest } from "../../../../src/llm/llm.js";
import { runPrioritySearch, type IterationSnapshot } from "../../../../src/opt/trainers/priority-search.js";
import { readStreamingOptions, streamingPrioritySearchTrainer } from "../../../../src/opt/trainers/streaming-priority-search.js";
import { scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { shownValues } from "../../../support/shown-values.js";
import { valueAgent } from "../../../support/parity.js";
import { harnessContext, runTrainer } from "../../../support/trainer-harness.js";

/** One float `value` (0.0) with target 3.0: numeric_param's search problem as an untraced agent, so prompts name it `value`. */
const numericParam = async () => valueAgent({ inputs: [null], targets: [3.0] });
const reply = (value: number) => xmlReply({ value });

const shownValue = (request: ChatRequest) => shownValues(request).value;

describe("StreamingPrioritySearch", () => {
  const kwargs = { num_epochs: 0, num_steps: 3, num_candidates: 4, num_proposals: 1, exploration_ratio: 0.5 };

  it("improves only K = num_candidates·ratio/P pairs, skips validation, and explores new candidates next", async () => {
    const llm = scriptedLlm([reply(2), reply(5), reply(3), reply(2.9)]);
    const observed: IterationSnapshot[] = [];
    const { context, events } = harnessContext(await numericParam(), llm, { kwargs });
    const result = await runPrioritySearch(context, readStreamingOptions(kwargs), (s) => observed.push(s));
    expect(llm.remaining()).toBe(0);
    const iterations = events.filter((e) => e.type === "IterationCompleted").map((e) => e.data as Record<string, unknown>);
    // K = 2 of the E·K = 4 pairs; evaluations are the E·B·K exploration rollouts only. The 4
    // initial copies are equal, so they count as one candidate: iteration 2 explores 3.
    expect(iterations.map((i) => [i.step, i.llm_calls, i.evaluations])).toEqual([
      [1, 2, 4],
      [2, 4, 7],
    ]);
    const [first, second] = observed;
    expect(first!.pairs).toBe(2);
    // New candidates enter unscored at the top priority: both are explored in iteration 2…
    expect(first!.created.map((c) => c.rollouts)).toEqual([0, 0]);
    const createdIds = first!.created.map((c) => c.id);
    expect(first!.exploration.map((c) => c.id)).toEqual(expect.arrayContaining(createdIds));
    // …where each gets exactly its B·K = 1 exploration rollout.
    for (const id of createdIds) expect(second!.explored.find((c) => c.id === id)?.rollouts).toBe(1);
    // The best is the highest mean among scored candidates (2 → −1, better than the initial −3).
    expect(second!.best.values).toEqual({ value: 2 });
    expect(result.values).toEqual({ value: 2 });
  });

  it("with temperature ≤ 0 improves the highest-priority pairs", async () => {
    const llm = scriptedLlm([reply(2), reply(5), reply(3), reply(2.9)]);
    const run = await runTrainer(streamingPrioritySearchTrainer, await numericParam(), llm, { kwargs: { ...kwargs, exploration_temperature: 0 } });
    // Iteration 2: the two new candidates (means −1 and −2) beat the initial copies (−3).
    expect(llm.requests.map(shownValue).slice(2).sort()).toEqual([2, 5]);
    expect(run.iterations).toHaveLength(2);
  });

  it("lowers num_proposals above num_candidates·ratio and notes it", async () => {
    const llm = scriptedLlm([reply(1)]);
    const run = await runTrainer(streamingPrioritySearchTrainer, await numericParam(), llm, {
      kwargs: { num_epochs: 0, num_steps: 2, num_candidates: 2, num_proposals: 3, exploration_ratio: 0.5 },
    });
    expect(run.iterations).toHaveLength(1);
    expect(run.iterations[0]).toMatchObject({ llm_calls: 1, evaluations: 2 });
    expect((run.iterations[0]!.notes as string[]).join("\n")).toMatch(/num_proposals 3 exceeds/);
  });

  it("rejects an exploration_ratio outside (0, 1]", () => {
    expect(() => readStreamingOptions({ exploration_ratio: 0 })).toThrow(/exploration_ratio/);
    expect(() => readStreamingOptions({ exploration_ratio: 1.5 })).toThrow(/exploration_ratio/);
  });

  it("is deterministic with the stub LLM, and its best is always a scored candidate (the reference adopts unscored ones: streaming-priority-search)", async () => {
    const kwargs = { num_epochs: 0, num_steps: 6, num_candidates: 4 };
    const run = async () => (await runTrainer(streamingPrioritySearchTrainer, await numericParam(), createStubLlm(9), { kwargs, seed: 9 })).iterations;
    const first = await run();
    expect(await run()).toEqual(first);
    expect(first).toHaveLength(5);
    // New candidates enter unscored, yet every iteration's best has rollouts and its true score.
    const snapshots: IterationSnapshot[] = [];
    const { context } = harnessContext(await numericParam(), createStubLlm(9), { kwargs, seed: 9 });
    await runPrioritySearch(context, readStreamingOptions(kwargs), (s) => snapshots.push(s));
    expect(snapshots).toHaveLength(5);
    expect(snapshots.some((s) => s.created.length > 0 && s.created.every((c) => c.rollouts === 0))).toBe(true);
    for (const s of snapshots) {
      expect(s.best.rollouts).toBeGreaterThan(0);
      expect(s.best.mean).toBe(-Math.abs(Number(s.best.values.value) - 3));
    }
  });
});
