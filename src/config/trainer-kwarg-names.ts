/**
 * Trainer kwargs every trainer accepts (spec §2.5 strict allow-list, in its order). The counts
 * among them are typed in the config schema; the whole list is the base of `validate --strict`.
 */

/** Kwargs whose value is a whole number ≥ 0 (or null for "default"). */
export const COUNT_KWARGS = [
  "threads",
  "num_threads",
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
  "ps_steps",
  "ps_batches",
  "ps_candidates",
  "ps_proposals",
  "ps_mem_update",
  "gepa_iters",
  "gepa_train_bs",
  "gepa_merge_every",
  "gepa_pareto_subset",
] as const;

export const COMMON_TRAINER_KWARGS: readonly string[] = ["verbose", ...COUNT_KWARGS, "optimizer_kwargs", "eval_kwargs"];
