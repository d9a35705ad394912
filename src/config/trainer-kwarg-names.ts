/**
 * Trainer kwarg names the config schema knows: the counts (typed in the schema) and the kwargs
 * every trainer takes.
 */
import { LEGACY_KNOBS } from "./legacy-knobs.js";

/** Kwargs whose value is a whole number ≥ 0 (or null for "default"). */
export const COUNT_KWARGS: readonly string[] = [
  // Every legacy knob but `verbose` is a count.
  ...LEGACY_KNOBS.filter((knob) => knob !== "verbose"),
  "num_epochs",
  "num_steps",
  "num_batches",
  "num_candidates",
  "num_proposals",
  "num_iters",
  "num_search_iterations",
  "train_batch_size",
  "batch_size",
  "merge_every",
  "pareto_subset_size",
];

/**
 * Kwargs every trainer takes: the rest are each trainer's own (`Trainer.kwargs`), plus the legacy
 * knobs that `trainer-kwargs.ts` renames to one of them for that trainer.
 */
export const COMMON_TRAINER_KWARGS: readonly string[] = ["verbose", "threads", "num_threads", "optimizer_kwargs", "eval_kwargs"];
