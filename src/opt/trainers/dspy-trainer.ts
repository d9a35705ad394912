/**
 * DSPyTrainer (the original's external trainer for DSPy programs): its jobs run DSPy itself, in
 * Python, never an imitation of it here. The trainer declares the framework it needs, so the task
 * builds its DSPy agent (`eval_kwargs.framework: dspy`, as the original injects it); a task that
 * cannot (Python's dspy is missing) skips the job with the reason. Where dspy imports, the task's
 * DSPy agent runs (each example a DSPy program whose LM is the job's loopback audit endpoint), but
 * running DSPy's optimizers on it (compile with MIPROv2, COPRO, SIMBA or GEPA, their metric being
 * the task's guide) is not built yet: such a job is skipped saying so, before its initial
 * evaluation pays for anything. The kwargs are the original's `train` parameters, for
 * `validate --strict`.
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

/** DSPy's optimizer a job names (the original's default is MIPROv2). */
const optimizerOf = (kwargs: Readonly<Record<string, unknown>>): string => String(kwargs.dspy_optimizer ?? "mipro");

export const dspyTrainer: Trainer = {
  id: "DSPyTrainer",
  kwargs: DSPY_TRAINER_KWARGS,
  framework: "dspy",
  skipReason(agent, kwargs) {
    if (!agent.name.startsWith("DSPy")) return null;
    return `DSPyTrainer: this build runs the task's DSPy agent (${agent.name}) but not DSPy's optimizers (dspy_optimizer ${optimizerOf(kwargs)}) yet; evaluate the agent with NoOpTrainer meanwhile`;
  },
  train() {
    // A task that ignored framework dspy and built a Trace agent: DSPy cannot optimize it.
    return Promise.reject(new Error("DSPyTrainer optimizes a DSPy program: its task must build one (eval_kwargs.framework: dspy, an hf task); this task built none"));
  },
};
