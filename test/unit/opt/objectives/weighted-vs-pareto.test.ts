/**
 * A hand-built case where the objectives conflict, so a weighted and a Pareto run of the same task
 * select differently. One number x; the guide scores accuracy (maximized) and cost (minimized):
 *
 *     x   accuracy  cost   weighted (1.0 × accuracy − 0.1 × cost)   Pareto front
 *     0     0.2       1           0.1                                  yes (cheapest)
 *     1     1.0      10           0.0                                  yes (most accurate)
 *     2     0.6       2           0.4   ← weighted picks it            yes
 *     3     0.5       3           0.2                                  no (x=2 is better on both)
 *
 * Weighted: the 0.4 accuracy x=1 gains costs 8 units at 0.1 each, so x=2 has the best sum. Pareto
 * (tie-break lexicographic): x=0, 1 and 2 are all non-dominated; the tie goes to the highest value
 * of the first metric by name, accuracy, so x=1.
 */
import { describe, expect, it } from "vitest";
import type { TaskBundle } from "../../../../src/domain/task-bundle.js";
import { basicSearchTrainer } from "../../../../src/opt/trainers/basic-search.js";
import { beamsearchTrainer } from "../../../../src/opt/trainers/beamsearch.js";
import { beamsearchHistoryTrainer } from "../../../../src/opt/trainers/beamsearch-history.js";
import type { Trainer } from "../../../../src/opt/trainer.js";
import { scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { runTrainer } from "../../../support/trainer-harness.js";

const METRICS: Record<number, { accuracy: number; cost: number }> = {
  0: { accuracy: 0.2, cost: 1 },
  1: { accuracy: 1.0, cost: 10 },
  2: { accuracy: 0.6, cost: 2 },
  3: { accuracy: 0.5, cost: 3 },
};

function tradeOffBundle(metadata: Record<string, unknown> = {}): TaskBundle {
  return {
    taskId: "test:trade-off",
    parameters: [{ name: "x", kind: "number", value: 0, description: "A setting.", trainable: true }],
    agent: { name: "EchoAgent", run: (_input, values) => values.x },
    guide: {
      name: "TradeOffGuide",
      evaluate(_input, response) {
        const scores = METRICS[response as number]!;
        return { score: scores.accuracy, feedback: `accuracy ${scores.accuracy}, cost ${scores.cost}`, scores };
      },
    },
    train_dataset: { inputs: [0], infos: [null] },
    optimizer_kwargs: { objective: "Trade accuracy against cost." },
    metadata,
  };
}

const WEIGHTED = { mode: "weighted", weights: { accuracy: 1.0, cost: 0.1 }, minimize: ["cost"] };
const PARETO = { mode: "pareto", weights: { accuracy: 1.0, cost: 0.1 }, minimize: ["cost"], tie_break: "lexicographic" };

async function chosen(trainer: Trainer, kwargs: Record<string, unknown>, objective: Record<string, unknown> | null, metadata: Record<string, unknown> = {}): Promise<unknown> {
  const llm = scriptedLlm([xmlReply({ x: 1 }), xmlReply({ x: 2 }), xmlReply({ x: 3 })]);
  const run = await runTrainer(trainer, tradeOffBundle(metadata), llm, { kwargs: { ...kwargs, ...(objective ? { objective_config: objective } : {}) } });
  expect(llm.remaining()).toBe(0);
  return run.values.x;
}

const CASES: { trainer: Trainer; kwargs: Record<string, unknown> }[] = [
  { trainer: basicSearchTrainer, kwargs: { num_proposals: 3, ensure_improvement: false } },
  { trainer: beamsearchTrainer, kwargs: { num_proposals: 3, beam_width: 1, max_depth: 1, validation_dataset_size: 1 } },
  { trainer: beamsearchHistoryTrainer, kwargs: { num_proposals: 3, beam_width: 1, max_depth: 1, validation_dataset_size: 1 } },
];

describe("weighted and Pareto objectives select differently where the metrics conflict", () => {
  it.each(CASES)("$trainer.id: weighted picks x=2, Pareto (lexicographic) x=1, the mean score alone x=1", async ({ trainer, kwargs }) => {
    expect(await chosen(trainer, kwargs, WEIGHTED)).toBe(2);
    expect(await chosen(trainer, kwargs, PARETO)).toBe(1);
    // Without an objective the guide's scalar score (accuracy) decides; `mode: scalar` is the same.
    expect(await chosen(trainer, kwargs, null)).toBe(1);
    expect(await chosen(trainer, kwargs, { mode: "scalar" })).toBe(1);
  });

  it("Pareto with the weighted tie-break falls back to the weighted sums among the front: x=2", async () => {
    expect(await chosen(basicSearchTrainer, CASES[0]!.kwargs, { ...PARETO, tie_break: "weighted" })).toBe(2);
  });

  it("a task's own objective (metadata.objective_config) reaches the trainer; the variant's objective_config wins", async () => {
    const kwargs = CASES[0]!.kwargs;
    expect(await chosen(basicSearchTrainer, kwargs, null, { objective_config: WEIGHTED })).toBe(2);
    expect(await chosen(basicSearchTrainer, kwargs, PARETO, { objective_config: WEIGHTED })).toBe(1);
  });
});
