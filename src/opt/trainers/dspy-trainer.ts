/**
 * DSPyTrainer (the original's external trainer for DSPy programs): its jobs run DSPy itself, in
 * Python, never an imitation of it here. The trainer declares the framework it needs, so the task
 * builds its DSPy agent (`eval_kwargs.framework: dspy`, as the original injects it); a task that
 * cannot (Python's dspy is missing, or this build does not drive DSPy programs yet) skips the job
 * with the reason. The kwargs are the original's `train` parameters, for `validate --strict`.
 */
import type { Trainer } from "../trainer.js";

/** DSPyTrainer.train's keyword parameters in the original (spec §7.3), all optimizers' together. */
export const DSPY_TRAINER_KWARGS = [
  "dspy_optimizer",
  "dspy_lm",
  "auto",
  "num_candidates",
  "num_trials",
  "max_bootstrapped_demos",
  "max_labeled_demos",
  "init_temperature",
  "breadth",
  "depth",
  "max_steps",
  "bsize",
  "max_demos",
  "max_metric_calls",
  "max_full_evals",
  "reflection_minibatch_size",
  "reflection_lm",
  "seed",
] as const;

export const dspyTrainer: Trainer = {
  id: "DSPyTrainer",
  kwargs: DSPY_TRAINER_KWARGS,
  framework: "dspy",
  train() {
    // Reached only when a task ignored framework dspy and built a Trace agent: DSPy cannot optimize it.
    return Promise.reject(new Error("DSPyTrainer optimizes a DSPy program: its task must build one (eval_kwargs.framework: dspy, an hf task); this task built none"));
  },
};
