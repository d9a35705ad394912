import { describe, expect, it } from "vitest";
import { negativeAbsoluteError } from "../../../../adapters/tasks/guides.js";
import type { ChatRequest } from "../../../../src/llm/llm.js";
import type { ParameterSpec } from "../../../../src/domain/parameter.js";
import { beamsearchHistoryTrainer, historyFeedback } from "../../../../src/opt/trainers/beamsearch-history.js";
import type { TaskBundle } from "../../../../src/domain/task-bundle.js";
import { scriptedLlm, xmlReply, type ScriptStep } from "../../../support/scripted-llm.js";
import { perStep, runTrainer } from "../../../support/trainer-harness.js";

function targetBundle(): TaskBundle {
  return {
    taskId: "test:target",
    parameters: [
      { name: "x", kind: "number", value: 0, description: "A number.", trainable: true },
      { name: "unit", kind: "text", value: "cm", description: "Fixed.", trainable: false },
    ],
    agent: {
      name: "EchoAgent",
      run: (_input, values) => {
        if ((values.x as number) < 0) throw new Error("negative x");
        return values.x;
      },
    },
    guide: negativeAbsoluteError,
    train_dataset: { inputs: [0, 1, 2, 3], infos: [3, 3, 3, 3] },
    optimizer_kwargs: { objective: "Make x reach the target." },
    metadata: {},
  };
}

function capturing() {
  const prompts: string[] = [];
  const x =
    (value: number): ScriptStep =>
    (request: ChatRequest) => {
      prompts.push(request.messages.map((m) => m.content).join("\n"));
      return xmlReply({ x: value });
    };
  return { prompts, x };
}

describe("BeamsearchHistoryAlgorithm (reference §3.4)", () => {
  it("shows the optimizer the beams kept at earlier depths with their scores (defaults: one proposal per beam)", async () => {
    const { prompts, x } = capturing();
    // depth 1: one beam → 1 call; candidates [2, 0] both kept (beam_width 3); depth 2: beams [2, 0] → 2 calls.
    const llm = scriptedLlm([x(2), x(2.5), x(1)]);
    const run = await runTrainer(beamsearchHistoryTrainer, targetBundle(), llm, { kwargs: { validation_dataset_size: 2 } });
    expect(llm.remaining()).toBe(0);
    expect(perStep(run.iterations, "llm_calls")).toEqual([1, 2, 0]);
    expect(perStep(run.iterations, "evaluations")).toEqual([1 + 2 * 2, 2 + 4 * 2, 3 * 4]);

    const first = prompts[0]!;
    expect(first).toMatch(/--- Current Feedback ---\nID \[0\]: target=3\.0\n\n\n--- History Context ---\n.+\n\(Nothing has been kept yet\.\)\n/);
    for (const later of prompts.slice(1)) {
      expect(later).toContain("--- Current Feedback ---\nID [0]: target=3.0\n");
      expect(later).toContain("  Attempt 1 (Score: -1.0000): {x: 2.0000}\n  Attempt 2 (Score: -3.0000): {x: 0.0000}\n");
      // Only trainable parameters are listed.
      expect(later).not.toContain("unit: cm");
    }
    expect(run.values).toEqual({ x: 2.5, unit: "cm" });
  });

  it("keeps only the most recent max_history_size entries", async () => {
    const { prompts, x } = capturing();
    const llm = scriptedLlm([x(2), x(2.5), x(1)]);
    await runTrainer(beamsearchHistoryTrainer, targetBundle(), llm, { kwargs: { validation_dataset_size: 2, max_history_size: 1 } });
    expect(prompts[1]).toContain("  Attempt 1 (Score: -3.0000): {x: 0.0000}\n");
    expect(prompts[1]).not.toContain("Attempt 2");
  });

  it("scores a failing validation example 0 by default (reference min_score=0)", async () => {
    const llm = scriptedLlm([xmlReply({ x: -1 })]);
    const run = await runTrainer(beamsearchHistoryTrainer, targetBundle(), llm, { kwargs: { max_depth: 1, beam_width: 1 } });
    // x = −1 makes the agent throw: it scores 0, above x = 0's −3.
    expect(run.values).toEqual({ x: -1, unit: "cm" });
    expect(run.iterations.at(-1)!.score).toBe(0);
  });

  it("formats history values: floats to 4 decimals, integers plainly, long lists abbreviated", () => {
    const parameters: ParameterSpec[] = [
      { name: "rate", kind: "number", value: 0.5, description: "", trainable: true },
      { name: "steps", kind: "integer", value: 3, description: "", trainable: true },
      { name: "weights", kind: "json", value: [1, 2, 3, 4, 5, 6], description: "", trainable: true },
      { name: "prompt", kind: "text", value: "hi", description: "", trainable: true },
      { name: "flag", kind: "json", value: true, description: "", trainable: true },
    ];
    const text = historyFeedback("ID [0]: ok\n", [{ values: { rate: 1 / 3, steps: 7, weights: [1, 2.5, 3, 4, 5, 6], prompt: "Be brief.", flag: false }, score: 0.123456 }], parameters, new Map());
    expect(text).toBe(
      "--- Current Feedback ---\nID [0]: ok\n\n\n--- History Context ---\n" +
        "Below are the parameter sets kept at earlier search depths with the validation score each reached; take them into account when proposing new values.\n" +
        "  Attempt 1 (Score: 0.1235): {rate: 0.3333, steps: 7, weights: [1, 2.5...6], prompt: Be brief., flag: False}\n",
    );
  });
});
