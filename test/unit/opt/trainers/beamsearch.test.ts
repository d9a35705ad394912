import { describe, expect, it } from "vitest";
import { createStubLlm } from "../../../../adapters/llm/stub-llm.js";
import { negativeAbsoluteError } from "../../../../adapters/tasks/guides.js";
import { beamsearchTrainer, topCandidates } from "../../../../src/opt/trainers/beamsearch.js";
import type { TaskBundle } from "../../../../src/domain/task-bundle.js";
import { scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { perStep, recording, runTrainer } from "../../../support/trainer-harness.js";

/** One number `x`; every example's response is `x` and scores −|x − 3|; a negative x makes the agent throw. */
function targetBundle(examples = 4): TaskBundle {
  return {
    taskId: "test:target",
    parameters: [{ name: "x", kind: "number", value: 0, description: "A number.", trainable: true }],
    agent: {
      name: "EchoAgent",
      run: (_input, values) => {
        if ((values.x as number) < 0) throw new Error("negative x");
        return values.x;
      },
    },
    guide: negativeAbsoluteError,
    train_dataset: { inputs: Array.from({ length: examples }, (_, i) => i), infos: Array.from({ length: examples }, () => 3) },
    optimizer_kwargs: { objective: "Make x reach the target." },
    metadata: {},
  };
}

describe("BeamsearchAlgorithm (reference §3.3)", () => {
  it("keeps the top beam_width candidates per depth (parents included), then picks on the full validate set", async () => {
    const { expanded, x, raw } = recording();
    const llm = scriptedLlm([
      // depth 1: one beam (x = 0)
      x(2),
      x(5),
      // depth 2: beams x = 2 and x = 5
      x(3),
      x(1),
      x(4),
      x(6),
      // depth 3: beams x = 3 and x = 2 (2 and 4 tie at −1; the earlier candidate wins)
      raw("TERMINATE"),
      raw("nothing readable"),
      raw("TERMINATE"),
      raw("TERMINATE"),
    ]);
    const kwargs = { beam_width: 2, num_proposals: 2, max_depth: 3, batch_size: 1, validation_dataset_size: 2 };
    const run = await runTrainer(beamsearchTrainer, targetBundle(), llm, { kwargs });
    expect(llm.remaining()).toBe(0);
    expect(expanded).toEqual([0, 0, 2, 2, 5, 5, 3, 3, 2, 2]);
    expect(run.iterations.map((it) => it.step)).toEqual([1, 2, 3, 4]);
    // beams × num_proposals optimizer calls per depth; none for the final selection.
    expect(perStep(run.iterations, "llm_calls")).toEqual([2, 4, 4, 0]);
    // beams × B forward + candidates × validation_dataset_size; final: beams × |validate|.
    expect(perStep(run.iterations, "evaluations")).toEqual([1 + 3 * 2, 2 + 6 * 2, 2 + 2 * 2, 2 * 4]);
    expect(run.iterations.map((it) => it.values)).toEqual([{ x: 2 }, { x: 3 }, { x: 3 }, { x: 3 }]);
    expect(run.iterations.map((it) => it.score)).toEqual([-1, 0, 0, 0]);
    expect(run.iterations.map((it) => it.best_score)).toEqual([-1, 0, 0, 0]);
    expect(run.iterations[2]!.notes).toEqual([
      "depth 3, beam 1, proposal 1: no update (the optimizer answered TERMINATE); proposal dropped",
      expect.stringMatching(/^depth 3, beam 1, proposal 2: no update \(unreadable reply/),
      "depth 3, beam 2, proposal 1: no update (the optimizer answered TERMINATE); proposal dropped",
      "depth 3, beam 2, proposal 2: no update (the optimizer answered TERMINATE); proposal dropped",
    ]);
    expect(run.values).toEqual({ x: 3 });
  });

  it("uses the reference defaults (beam_width 3, num_proposals 4, max_depth 2, batch_size 1, validation_dataset_size 5)", async () => {
    // depth 1: 4 proposals for the single beam; 5 candidates → the 3 best survive; depth 2: 3 × 4 proposals.
    const llm = scriptedLlm([...[1, 2, 4, 9].map((v) => xmlReply({ x: v })), ...Array.from({ length: 12 }, () => "TERMINATE")]);
    const run = await runTrainer(beamsearchTrainer, targetBundle(6), llm);
    expect(llm.remaining()).toBe(0);
    expect(perStep(run.iterations, "llm_calls")).toEqual([4, 12, 0]);
    expect(perStep(run.iterations, "evaluations")).toEqual([1 + 5 * 5, 3 + 3 * 5, 3 * 6]);
    expect(run.values).toEqual({ x: 2 });
  });

  it("a candidate whose agent fails scores −∞ (min_score unset) and is not kept over valid ones", async () => {
    const llm = scriptedLlm([xmlReply({ x: -1 }), xmlReply({ x: 1 })]);
    const run = await runTrainer(beamsearchTrainer, targetBundle(), llm, { kwargs: { beam_width: 1, num_proposals: 2, max_depth: 1 } });
    expect(run.iterations[0]!.values).toEqual({ x: 1 });
    expect(run.values).toEqual({ x: 1 });
  });

  it("with min_score set, a failing example scores it instead", async () => {
    const llm = scriptedLlm([xmlReply({ x: -1 })]);
    const run = await runTrainer(beamsearchTrainer, targetBundle(), llm, { kwargs: { beam_width: 1, num_proposals: 1, max_depth: 1, min_score: 5 } });
    expect(run.values).toEqual({ x: -1 });
    expect(run.iterations.at(-1)!.score).toBe(5);
  });

  it("topCandidates keeps everything up to the width and sorts stably beyond it", () => {
    const c = (x: number, score: number) => ({ values: { x }, score });
    expect(topCandidates([c(1, -5), c(2, -1)], 3)).toEqual([c(1, -5), c(2, -1)]);
    expect(topCandidates([c(1, -2), c(2, -1), c(3, -1), c(4, -Infinity)], 2)).toEqual([c(2, -1), c(3, -1)]);
    expect(topCandidates([c(1, -Infinity), c(2, -Infinity)], 1)).toEqual([c(1, -Infinity)]);
  });

  it("the same seed gives the same history", async () => {
    const once = () => runTrainer(beamsearchTrainer, targetBundle(6), createStubLlm(5), { seed: 5, kwargs: { num_threads: 4, validation_dataset_size: 3 } });
    const [a, b] = [await once(), await once()];
    expect(a.iterations).toHaveLength(3);
    expect(b.iterations).toEqual(a.iterations);
    expect(b.values).toEqual(a.values);
  });
});
