/**
 * NoOpTrainer (the reference's template/baseline): scores the agent on the first `num_steps`
 * training examples, one step each, and never changes a parameter.
 */
import { examplesOf } from "../rollout.js";
import type { Trainer } from "../trainer.js";

export const noOpTrainer: Trainer = {
  id: "NoOpTrainer",
  kwargs: ["num_steps"],
  async train(context) {
    const { kwargs, initialValues } = context;
    const requested = typeof kwargs.num_steps === "number" ? kwargs.num_steps : 1;
    const examples = examplesOf(context.train).slice(0, Math.max(0, requested));
    let best: number | null = null;
    for (const [i, example] of examples.entries()) {
      const [rollout] = await context.rollout(initialValues, [example]);
      // Like the original, an agent that throws fails the training.
      if (rollout!.error !== undefined) throw new Error(rollout!.error);
      const score = rollout!.score;
      if (score !== null && (best === null || score > best)) best = score;
      context.emit({ step: i + 1, score, best_score: best, values: initialValues });
    }
    return { values: initialValues };
  },
};
