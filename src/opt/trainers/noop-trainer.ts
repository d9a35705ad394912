/**
 * NoOpTrainer (the reference's template/baseline): scores the agent on the first `num_steps`
 * training examples, one step each, and never changes a parameter.
 */
import type { Trainer } from "../trainer.js";

export const noOpTrainer: Trainer = {
  id: "NoOpTrainer",
  async train(context) {
    const { train, kwargs, initialValues, agent, guide, signal } = context;
    const requested = typeof kwargs.num_steps === "number" ? kwargs.num_steps : 1;
    const steps = Math.min(requested, train.inputs.length, train.infos.length);
    let best: number | null = null;
    for (let i = 0; i < steps; i++) {
      signal.throwIfAborted();
      const input = train.inputs[i];
      const response = await agent.run(input, initialValues, { signal });
      const { score } = await guide.evaluate(input, response, train.infos[i], { signal });
      best = best === null || score > best ? score : best;
      context.emit({ step: i + 1, score, best_score: best, values: initialValues, llm_calls: 0, evaluations: i + 1 });
    }
    return { values: initialValues };
  },
};
