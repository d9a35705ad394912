/**
 * PrioritySearch presets (algorithms reference §3.12), with the semantics their docstrings intend
 * (OpenTrace's versions forward `memory_size`, `default_score` and `validate_proposals` as unknown
 * kwargs and call `train` positionally, which fails):
 *   - SequentialUpdate: num_candidates 1, num_proposals 1, memory 1 — one proposal per step from
 *     the current candidate, validated on the step's batch; the memory keeps only the better of
 *     the two by mean score (the current candidate's mean covers all its rollouts so far) —
 *     ≈ MinibatchAlgorithm with ensure_improvement; on a tie the newer one stays.
 *   - SequentialSearch: num_candidates 1, memory 1, num_proposals proposals (default 1, as in the
 *     reference: parity scenario ps-presets) — the best of the current candidate and its
 *     proposals survives.
 *   - BeamSearch: memory size = num_candidates (the beam width); every beam is explored and gets
 *     num_proposals proposals; the top num_candidates by mean survive.
 * `memory_size` is accepted (the original signature has it) but fixed by each preset; the memory
 * bound applies to both the long- and short-term memories. `validate_proposals: false` lets new
 * candidates into memory unscored at priority `default_score` (default: the upper end of
 * `score_range`, i.e. +inf), so they are adopted and explored without validation (≈
 * ensure_improvement off). Forced values that differ from the given kwargs are noted.
 */
import type { Kwargs } from "../../config/kwargs.js";
import type { Trainer } from "../trainer.js";
import { boolKwarg, intKwarg, numberKwarg, readPrioritySearchOptions, type PrioritySearchOptions } from "./priority-search-options.js";
import { PRIORITY_SEARCH_KWARGS, runPrioritySearch } from "./priority-search.js";

/** The memory bounds are fixed by each preset, so the two memory-size kwargs are not offered. */
export const PRESET_KWARGS: readonly string[] = [
  ...PRIORITY_SEARCH_KWARGS.filter((k) => k !== "long_term_memory_size" && k !== "short_term_memory_size"),
  "default_score",
  "validate_proposals",
  "memory_size",
];

export type PresetId = "SequentialUpdate" | "SequentialSearch" | "BeamSearch";

export interface PresetOptions {
  readonly options: PrioritySearchOptions;
  /** Remarks about kwargs the preset overrides. */
  readonly notes: readonly string[];
}

export function readPresetOptions(kwargs: Kwargs, preset: PresetId): PresetOptions {
  const defaults =
    preset === "SequentialUpdate" ? { numCandidates: 1, numProposals: 1 } : preset === "SequentialSearch" ? { numCandidates: 1, numProposals: 1 } : { numCandidates: 10, numProposals: 1 };
  // The memory bounds are the preset's own: the general memory-size kwargs are set aside.
  const { long_term_memory_size: _long, short_term_memory_size: _short, ...rest } = kwargs;
  const base = readPrioritySearchOptions(rest, preset, defaults);
  const notes: string[] = [];
  for (const name of ["long_term_memory_size", "short_term_memory_size"]) {
    if (kwargs[name] !== undefined) notes.push(`${preset}: ${name} is ignored (the preset fixes the memory size)`);
  }
  const force = (name: string, given: number, forced: number) => {
    if (Object.prototype.hasOwnProperty.call(kwargs, name) && kwargs[name] !== null && given !== forced) notes.push(`${preset}: ${name} is fixed to ${forced} (got ${given})`);
    return forced;
  };
  const numCandidates = preset === "BeamSearch" ? base.numCandidates : force("num_candidates", base.numCandidates, 1);
  const numProposals = preset === "SequentialUpdate" ? force("num_proposals", base.numProposals, 1) : base.numProposals;
  const memorySize = preset === "BeamSearch" ? numCandidates : 1;
  const givenMemory = intKwarg(kwargs, preset, "memory_size", memorySize, 1);
  force("memory_size", givenMemory, memorySize);
  const options: PrioritySearchOptions = {
    ...base,
    numCandidates,
    numProposals,
    longTermMemorySize: memorySize,
    shortTermMemorySize: memorySize,
    validateProposals: boolKwarg(kwargs, preset, "validate_proposals", true),
    defaultPriority: numberKwarg(kwargs, preset, "default_score", base.scoreRange[1]),
  };
  return { options, notes };
}

function presetTrainer(id: PresetId): Trainer {
  return {
    id,
    kwargs: PRESET_KWARGS,
    train(context) {
      const { options, notes } = readPresetOptions(context.kwargs, id);
      for (const note of notes) context.note(note);
      return runPrioritySearch(context, options);
    },
  };
}

export const sequentialUpdateTrainer: Trainer = presetTrainer("SequentialUpdate");
export const sequentialSearchTrainer: Trainer = presetTrainer("SequentialSearch");
export const beamSearchTrainer: Trainer = presetTrainer("BeamSearch");
