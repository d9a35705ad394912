/**
 * PrioritySearch under an objective (the reference's ParetoHeapMemory and its exploration
 * priority): a Pareto pop chooses among the 20 highest priorities by front, then weighted sum; it
 * falls back to the priority when one of them has no score dict yet.
 */
import { describe, expect, it } from "vitest";
import { objectiveConfig } from "../../../../src/opt/objectives/objective-config.js";
import type { ScoreDict } from "../../../../src/opt/objectives/score-dicts.js";
import type { Optimizer } from "../../../../src/opt/optimizer.js";
import { candidateMeanScoreDict, type SearchCandidate } from "../../../../src/opt/trainers/priority-search-memory.js";
import { ParetoHeapMemory, PARETO_POP_WINDOW } from "../../../../src/opt/trainers/priority-search-pareto-memory.js";
import { prioritySearchTrainer } from "../../../../src/opt/trainers/priority-search.js";
import { paretobasedPsTrainer } from "../../../../src/opt/trainers/paretobased-ps.js";
import { scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { runTrainer } from "../../../support/trainer-harness.js";

let nextId = 0;
function candidate(name: string, dicts: (ScoreDict | null)[]): SearchCandidate {
  return { id: nextId++, values: { name }, optimizer: {} as Optimizer, parentId: null, scores: dicts.map(() => 0), inputs: dicts.map(() => null), scoreDicts: dicts };
}

const objective = objectiveConfig({ mode: "pareto", weights: { accuracy: 1, cost: 0.1 }, minimize: ["cost"] });

describe("ParetoHeapMemory", () => {
  it("pops the front-0 candidate with the best weighted sum, not the highest priority", () => {
    const memory = new ParetoHeapMemory(Infinity, objective);
    // Highest priority, but dominated by `cheap` (less accurate, dearer).
    memory.push(9, candidate("dominated", [{ accuracy: 0.5, cost: 5 }]));
    memory.push(5, candidate("accurate", [{ accuracy: 1.0, cost: 10 }])); // weighted 0.0
    memory.push(1, candidate("cheap", [{ accuracy: 0.6, cost: 2 }, { accuracy: 0.6, cost: 2 }])); // weighted 0.4
    expect(memory.pop()!.candidate.values.name).toBe("cheap");
    // Without `cheap` both are on the front (accurate is dearer); their weighted sums tie at 0.0
    // (0.5 − 0.5 and 1.0 − 1.0), and the first in priority order wins.
    expect(memory.pop()!.candidate.values.name).toBe("dominated");
    expect(memory.pop()!.candidate.values.name).toBe("accurate");
    expect(memory.pop()).toBeUndefined();
  });

  it("pops by priority while one of the window has no score dict (exploration rollouts carry none)", () => {
    const memory = new ParetoHeapMemory(Infinity, objective);
    memory.push(9, candidate("dominated", [{ accuracy: 0.5, cost: 5 }]));
    memory.push(1, candidate("cheap", [{ accuracy: 0.6, cost: 2 }]));
    memory.push(0, candidate("unscored", [null]));
    expect(memory.pop()!.candidate.values.name).toBe("dominated");
  });

  it("only the 20 highest priorities are candidates for a pop", () => {
    const memory = new ParetoHeapMemory(Infinity, objective);
    for (let i = 0; i < PARETO_POP_WINDOW; i++) memory.push(100 - i, candidate(`weak${i}`, [{ accuracy: 0.1, cost: 9 }]));
    // The best on both metrics, but 21st by priority.
    memory.push(0, candidate("best", [{ accuracy: 1, cost: 0 }]));
    expect(memory.pop()!.candidate.values.name).toBe("weak0");
  });

  it("a candidate's score dict is the per-metric mean of its rollouts that have one", () => {
    expect(candidateMeanScoreDict(candidate("c", [{ accuracy: 1, cost: 2 }, null, { accuracy: 0, cost: 4 }]))).toEqual({ accuracy: 0.5, cost: 3 });
    expect(candidateMeanScoreDict(candidate("c", [null]))).toBeNull();
  });
});

describe("PrioritySearch and ParetobasedPS take objective_config", () => {
  const bundle = {
    taskId: "test:trade-off",
    parameters: [{ name: "x", kind: "number" as const, value: 0, description: "A setting.", trainable: true }],
    agent: { name: "EchoAgent", run: (_input: unknown, values: Record<string, unknown>) => values.x },
    guide: {
      name: "TradeOffGuide",
      evaluate: (_input: unknown, response: unknown) => {
        const x = response as number;
        return { score: x, feedback: `x=${x}`, scores: { accuracy: x / 10, cost: x * x } };
      },
    },
    train_dataset: { inputs: [0], infos: [null] },
    optimizer_kwargs: {},
    metadata: {},
  };

  it.each([prioritySearchTrainer, paretobasedPsTrainer])("$id runs with a Pareto objective and keeps the best mean score as its result", async (trainer) => {
    const llm = scriptedLlm([xmlReply({ x: 1 }), xmlReply({ x: 2 })]);
    const kwargs = { num_steps: 2, num_epochs: 0, num_candidates: 1, num_proposals: 2, objective_config: { mode: "pareto", weights: { accuracy: 1, cost: 1 }, minimize: ["cost"] } };
    const run = await runTrainer(trainer, bundle, llm, { kwargs });
    expect(llm.remaining()).toBe(0);
    // Exploitation is the mean score (x itself), as the reference: x=2 despite its cost.
    expect(run.values.x).toBe(2);
  });
});
