/** An evaluation's per-metric means (issue 34): what EvaluationCompleted and JobFinished record beside the score. */
import { describe, expect, it } from "vitest";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { scoreDataset } from "../../../src/tasks/score-dataset.js";

/** A bundle whose agent echoes its input and whose guide returns the scores each input names. */
function bundleOf(results: Record<string, { score: number; scores?: Record<string, number> } | "throws">): TaskBundle {
  return {
    agent: { name: "Echo", run: (input: unknown) => input },
    guide: {
      name: "g",
      evaluate: (input: unknown) => {
        const result = results[String(input)]!;
        if (result === "throws") throw new Error("boom");
        return { ...result, feedback: "" };
      },
    },
  } as unknown as TaskBundle;
}

const split = (inputs: string[]) => ({ name: "train_dataset", dataset: { inputs, infos: inputs.map(() => null) } });

describe("scoreDataset's per-metric means", () => {
  it("each metric's mean over the examples that report it (sorted by name); a non-finite value is left out", async () => {
    const bundle = bundleOf({ a: { score: 1, scores: { time: 2, accuracy: 1 } }, b: { score: 0, scores: { accuracy: 0, time: Number.NaN } }, c: { score: 1, scores: { accuracy: 1, time: 4 } } });
    const result = await scoreDataset(bundle, {}, split(["a", "b", "c"]));
    expect(result.score).toBeCloseTo(2 / 3, 12);
    expect(result.scores).toEqual({ accuracy: 2 / 3, time: 3 });
    expect(Object.keys(result.scores!)).toEqual(["accuracy", "time"]);
  });

  it("none for a guide without named scores, and none when the evaluation has no score", async () => {
    expect((await scoreDataset(bundleOf({ a: { score: 1 } }), {}, split(["a"]))).scores).toBeUndefined();
    const failed = await scoreDataset(bundleOf({ a: { score: 1, scores: { x: 1 } }, b: "throws" }), {}, split(["a", "b"]));
    expect(failed.score).toBeNull();
    expect(failed.scores).toBeUndefined();
  });
});
