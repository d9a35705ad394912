/**
 * Every trainer id a config may name (spec §7, algorithms reference §3), with whether this build
 * can run it and, if not, why. A trainer is listed as available only once it really runs.
 */
import { COMMON_TRAINER_KWARGS } from "../config/trainer-kwarg-names.js";
import { legacyAliasesOf } from "../config/trainer-kwargs.js";
import type { Trainer } from "./trainer.js";

export interface TrainerInfo {
  readonly id: string;
  readonly available: boolean;
  /**
   * Loads the implementation of an available trainer. Loaded on demand so that listing trainers
   * does not pay for importing every algorithm.
   */
  readonly load?: () => Promise<Trainer>;
  /** Why an unavailable trainer cannot run. */
  readonly reason?: string;
}

const NOT_YET = "not implemented yet";
const NOT_PLANNED = "not part of trace-bench (needs the Python package of the same name)";

const pending = (id: string, reason = NOT_YET): TrainerInfo => ({ id, available: false, reason });
const ready = (id: string, load: () => Promise<Trainer>): TrainerInfo => ({ id, available: true, load });

export const TRAINER_CATALOG: readonly TrainerInfo[] = [
  pending("AggregatedUpdate", "removed from OpenTrace (v0.2.0-alpha only)"),
  ready("BasicSearchAlgorithm", async () => (await import("./trainers/basic-search.js")).basicSearchTrainer),
  ready("BeamSearch", async () => (await import("./trainers/priority-search-presets.js")).beamSearchTrainer),
  ready("BeamsearchAlgorithm", async () => (await import("./trainers/beamsearch.js")).beamsearchTrainer),
  ready("BeamsearchHistoryAlgorithm", async () => (await import("./trainers/beamsearch-history.js")).beamsearchHistoryTrainer),
  // Listed available as in the original; a job without Python's dspy is skipped with the reason.
  ready("DSPyTrainer", async () => (await import("./trainers/dspy-trainer.js")).dspyTrainer),
  ready("GEPA-Base", async () => (await import("./trainers/gepa.js")).gepaBaseTrainer),
  ready("GEPA-Beam", async () => (await import("./trainers/gepa.js")).gepaBeamTrainer),
  ready("GEPA-UCB", async () => (await import("./trainers/gepa.js")).gepaUcbTrainer),
  ready("Minibatch", async () => (await import("./trainers/minibatch.js")).minibatchTrainer),
  ready("MinibatchAlgorithm", async () => (await import("./trainers/minibatch.js")).minibatchAlgorithmTrainer),
  ready("NoOpTrainer", async () => (await import("./trainers/noop-trainer.js")).noOpTrainer),
  pending("OpenEvolveTrainer", NOT_PLANNED),
  ready("ParetobasedPS", async () => (await import("./trainers/paretobased-ps.js")).paretobasedPsTrainer),
  ready("POLCA", async () => (await import("./trainers/polca.js")).polcaTrainer),
  ready("PrioritySearch", async () => (await import("./trainers/priority-search.js")).prioritySearchTrainer),
  pending("PrioritySearch_with_Regressor", "removed from OpenTrace (v0.2.0-alpha only)"),
  ready("SequentialSearch", async () => (await import("./trainers/priority-search-presets.js")).sequentialSearchTrainer),
  ready("SequentialUpdate", async () => (await import("./trainers/priority-search-presets.js")).sequentialUpdateTrainer),
  ready("StreamingPrioritySearch", async () => (await import("./trainers/streaming-priority-search.js")).streamingPrioritySearchTrainer),
  pending("TextGradTrainer", "not implemented yet; use `optimizer: TextGrad` with any trainer"),
  ready("UCBSearchAlgorithm", async () => (await import("./trainers/ucb-search.js")).ucbSearchTrainer),
];

/** Original class names that configs may use for the GEPA trainers (spec §7.1). */
export const TRAINER_ALIASES: Readonly<Record<string, string>> = {
  GEPAAlgorithmBase: "GEPA-Base",
  GEPAUCBSearch: "GEPA-UCB",
  GEPABeamPareto: "GEPA-Beam",
};

export function findTrainer(id: string): TrainerInfo | undefined {
  const canonical = TRAINER_ALIASES[id] ?? id;
  return TRAINER_CATALOG.find((t) => t.id === canonical);
}

/**
 * What a params variant of this trainer may hold (`validate --strict` and `run` refuse the rest):
 * the kwargs every trainer takes, the trainer's own, and the legacy knobs renamed to one of those
 * for this trainer id (`ps_steps` for PrioritySearch, `gepa_iters` for the GEPA trainers).
 */
export async function acceptedTrainerKwargs(info: TrainerInfo | undefined, configId: string = info?.id ?? ""): Promise<string[]> {
  const own = info?.load ? ((await info.load()).kwargs ?? []) : [];
  const names = new Set([...COMMON_TRAINER_KWARGS, ...own]);
  const legacy = Object.entries(legacyAliasesOf(configId))
    .filter(([, target]) => names.has(target))
    .map(([alias]) => alias);
  return [...new Set([...names, ...legacy])];
}
