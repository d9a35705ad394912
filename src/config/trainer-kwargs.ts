/**
 * Algorithm-aware kwarg resolution (spec §2.6): built-in defaults for the search trainers, then
 * the variant's params with legacy aliases renamed. The result is part of every job's identity.
 */
import { cloneValue, type Kwargs } from "./kwargs.js";

const GEPA_SEARCH_DEFAULTS = { num_search_iterations: 1, train_batch_size: 2, merge_every: 2, pareto_subset_size: 2 };

const BUILTIN_DEFAULTS: Readonly<Record<string, Kwargs>> = {
  PrioritySearch: { num_epochs: 1, num_steps: 1, num_batches: 1, num_candidates: 2, num_proposals: 2 },
  "GEPA-Base": { num_iters: 1, train_batch_size: 2, merge_every: 2, pareto_subset_size: 2 },
  "GEPA-UCB": GEPA_SEARCH_DEFAULTS,
  "GEPA-Beam": GEPA_SEARCH_DEFAULTS,
};

const PRIORITY_SEARCH_ALIASES: Readonly<Record<string, string>> = {
  ps_steps: "num_steps",
  ps_batches: "num_batches",
  ps_candidates: "num_candidates",
  ps_proposals: "num_proposals",
  ps_mem_update: "memory_update_frequency",
  batch_size: "train_batch_size",
};

const GEPA_ALIASES: Readonly<Record<string, string>> = {
  gepa_train_bs: "train_batch_size",
  gepa_merge_every: "merge_every",
  gepa_pareto_subset: "pareto_subset_size",
};

function aliasesFor(trainerId: string): Readonly<Record<string, string>> {
  if (trainerId === "PrioritySearch") return PRIORITY_SEARCH_ALIASES;
  if (trainerId === "GEPA-Base") return { ...GEPA_ALIASES, gepa_iters: "num_iters" };
  if (trainerId === "GEPA-UCB" || trainerId === "GEPA-Beam") return { ...GEPA_ALIASES, gepa_iters: "num_search_iterations" };
  return {};
}

/** The legacy names (`ps_steps`, `gepa_iters`, ...) renamed for this trainer id, with what they become. */
export function legacyAliasesOf(trainerId: string): Readonly<Record<string, string>> {
  return aliasesFor(trainerId);
}

/** Params that configure the job itself, never handed to a trainer. */
const NOT_TRAINER_KWARGS = new Set(["eval_kwargs", "optimizer_kwargs"]);

export function builtinTrainerDefaults(trainerId: string): Kwargs {
  return cloneValue(BUILTIN_DEFAULTS[trainerId] ?? {});
}

export function resolveTrainerKwargs(params: Kwargs, trainerId: string): Kwargs {
  const resolved = builtinTrainerDefaults(trainerId);
  const aliases = aliasesFor(trainerId);
  for (const [key, value] of Object.entries(params)) {
    if (NOT_TRAINER_KWARGS.has(key)) continue;
    const name = key === "threads" ? "num_threads" : (aliases[key] ?? key);
    resolved[name] = cloneValue(value);
  }
  return resolved;
}
