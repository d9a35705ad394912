/**
 * Every trainer id a config may name (spec §7, algorithms reference §3), with whether this build
 * can run it and, if not, why. A trainer is listed as available only once it really runs.
 */

/** Kwargs every trainer accepts in `validate --strict` (spec §2.5). */
export const COMMON_TRAINER_KWARGS = [
  "verbose",
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
  "optimizer_kwargs",
  "eval_kwargs",
] as const;

import type { Trainer } from "./trainer.js";
import { basicSearchTrainer } from "./trainers/basic-search.js";
import { beamsearchHistoryTrainer } from "./trainers/beamsearch-history.js";
import { beamsearchTrainer } from "./trainers/beamsearch.js";
import { gepaBaseTrainer, gepaBeamTrainer, gepaUcbTrainer } from "./trainers/gepa.js";
import { minibatchAlgorithmTrainer, minibatchTrainer } from "./trainers/minibatch.js";
import { noOpTrainer } from "./trainers/noop-trainer.js";
import { beamSearchTrainer, sequentialSearchTrainer, sequentialUpdateTrainer } from "./trainers/priority-search-presets.js";
import { prioritySearchTrainer } from "./trainers/priority-search.js";
import { streamingPrioritySearchTrainer } from "./trainers/streaming-priority-search.js";
import { ucbSearchTrainer } from "./trainers/ucb-search.js";

export interface TrainerInfo {
  readonly id: string;
  readonly available: boolean;
  /** The implementation, for available trainers. */
  readonly trainer?: Trainer;
  /** Why an unavailable trainer cannot run. */
  readonly reason?: string;
  /** Kwargs accepted beyond the common list. */
  readonly extraKwargs: readonly string[];
}

const NOT_YET = "not implemented yet";
const NOT_PLANNED = "not part of trace-bench (needs the Python package of the same name)";

const pending = (id: string, reason = NOT_YET): TrainerInfo => ({ id, available: false, reason, extraKwargs: [] });
const ready = (trainer: Trainer): TrainerInfo => ({ id: trainer.id, available: true, trainer, extraKwargs: trainer.kwargs ?? [] });

export const TRAINER_CATALOG: readonly TrainerInfo[] = [
  pending("AggregatedUpdate", "removed from OpenTrace (v0.2.0-alpha only)"),
  ready(basicSearchTrainer),
  ready(beamSearchTrainer),
  ready(beamsearchTrainer),
  ready(beamsearchHistoryTrainer),
  pending("DSPyTrainer", NOT_PLANNED),
  ready(gepaBaseTrainer),
  ready(gepaBeamTrainer),
  ready(gepaUcbTrainer),
  ready(minibatchTrainer),
  ready(minibatchAlgorithmTrainer),
  ready(noOpTrainer),
  pending("OpenEvolveTrainer", NOT_PLANNED),
  pending("POLCA", NOT_YET),
  ready(prioritySearchTrainer),
  pending("PrioritySearch_with_Regressor", "removed from OpenTrace (v0.2.0-alpha only)"),
  ready(sequentialSearchTrainer),
  ready(sequentialUpdateTrainer),
  ready(streamingPrioritySearchTrainer),
  pending("TextGradTrainer", "not implemented yet; use `optimizer: TextGrad` with any trainer"),
  ready(ucbSearchTrainer),
];

/** Original class names that configs may use for the GEPA trainers (spec §7.1). */
const ALIASES: Readonly<Record<string, string>> = {
  GEPAAlgorithmBase: "GEPA-Base",
  GEPAUCBSearch: "GEPA-UCB",
  GEPABeamPareto: "GEPA-Beam",
};

export function findTrainer(id: string): TrainerInfo | undefined {
  const canonical = ALIASES[id] ?? id;
  return TRAINER_CATALOG.find((t) => t.id === canonical);
}

export function acceptedTrainerKwargs(trainer: TrainerInfo | undefined): string[] {
  return [...COMMON_TRAINER_KWARGS, ...(trainer?.extraKwargs ?? [])];
}
