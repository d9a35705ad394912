/**
 * Reading PrioritySearch-family kwargs (algorithms reference §3.7–3.9, §3.12) into validated
 * options. Defaults are OpenTrace's `train` defaults; Trace-Bench's own defaults for
 * `PrioritySearch` (spec §2.6) arrive already merged into the kwargs.
 */
import type { Kwargs } from "../../config/kwargs.js";

export type ScoreFunction = "mean" | "ucb" | "time";

export interface StreamingOptions {
  /** Share of `num_candidates` spent on new proposals each iteration, in (0, 1]. */
  readonly ratio: number;
  /** Softmax temperature of the choice of (candidate, sub-batch) pairs to improve; ≤ 0: greedy. */
  readonly temperature: number;
}

export interface PrioritySearchOptions {
  /** Trainer id, used in notes and errors. */
  readonly label: string;
  /** 0 when None. */
  readonly numEpochs: number;
  /** 0 when None. Counts SearchTemplate iterations, including the proposal-free iteration 0. */
  readonly numSteps: number;
  readonly batchSize: number;
  readonly numBatches: number;
  readonly numCandidates: number;
  readonly numProposals: number;
  readonly numThreads: number;
  readonly scoreRange: readonly [number, number];
  readonly scoreFunction: ScoreFunction;
  readonly ucbExplorationConstant: number;
  readonly validateExplorationCandidates: boolean;
  readonly useBestCandidateToExplore: boolean;
  /** Infinity: unbounded. */
  readonly longTermMemorySize: number;
  /** Infinity: unbounded. */
  readonly shortTermMemorySize: number;
  /** null: short-term memory only; 0: long-term only; k > 0: merge every k iterations. */
  readonly memoryUpdateFrequency: number | null;
  readonly decoupleOptimizers: boolean;
  /** Run new candidates on a validation batch before they enter memory (false: they enter unscored). */
  readonly validateProposals: boolean;
  /** Priority of a candidate without rollouts (Trace: `max_score`, the upper end of score_range). */
  readonly defaultPriority: number;
  readonly streaming?: StreamingOptions;
  /**
   * How exploration candidates are chosen: the highest priorities (PrioritySearch), or the Pareto
   * frontier of per-task scores (ParetobasedPS, which then ignores `use_best_candidate_to_explore`).
   */
  readonly exploration: "priority" | "pareto";
}

export class TrainerKwargError extends Error {
  override readonly name = "TrainerKwargError";
}

function has(kwargs: Kwargs, name: string): boolean {
  return Object.prototype.hasOwnProperty.call(kwargs, name) && kwargs[name] !== undefined;
}

function fail(label: string, name: string, why: string, value: unknown): never {
  throw new TrainerKwargError(`${label}: ${name} ${why}, got ${JSON.stringify(value) ?? String(value)}`);
}

function toNumber(label: string, name: string, value: unknown): number {
  if (typeof value === "number" && !Number.isNaN(value)) return value;
  if (typeof value === "string") {
    const text = value.trim().toLowerCase();
    if (text === "inf" || text === "+inf" || text === "infinity") return Infinity;
    if (text === "-inf" || text === "-infinity") return -Infinity;
    const n = Number(text);
    if (text !== "" && Number.isFinite(n)) return n;
  }
  return fail(label, name, "must be a number", value);
}

/** A whole number ≥ `min`; `fallback` when absent, `ifNull` when explicitly null. */
export function intKwarg(kwargs: Kwargs, label: string, name: string, fallback: number, min: number, ifNull = fallback): number {
  if (!has(kwargs, name)) return fallback;
  const value = kwargs[name];
  if (value === null) return ifNull;
  const n = toNumber(label, name, value);
  if (!Number.isInteger(n) || n < min) fail(label, name, `must be a whole number ≥ ${min}`, value);
  return n;
}

export function numberKwarg(kwargs: Kwargs, label: string, name: string, fallback: number): number {
  if (!has(kwargs, name) || kwargs[name] === null) return fallback;
  return toNumber(label, name, kwargs[name]);
}

export function boolKwarg(kwargs: Kwargs, label: string, name: string, fallback: boolean): boolean {
  if (!has(kwargs, name) || kwargs[name] === null) return fallback;
  const value = kwargs[name];
  if (typeof value === "boolean") return value;
  if (value === 0 || value === 1) return value === 1;
  if (typeof value === "string" && ["true", "false"].includes(value.trim().toLowerCase())) return value.trim().toLowerCase() === "true";
  return fail(label, name, "must be true or false", value);
}

/** A memory size: null/absent → unbounded. */
function sizeKwarg(kwargs: Kwargs, label: string, name: string): number {
  if (!has(kwargs, name) || kwargs[name] === null) return Infinity;
  const n = toNumber(label, name, kwargs[name]);
  if (n === Infinity) return Infinity;
  if (!Number.isInteger(n) || n < 0) fail(label, name, "must be a whole number ≥ 0 or null", kwargs[name]);
  return n;
}

function scoreRangeKwarg(kwargs: Kwargs, label: string): [number, number] {
  if (!has(kwargs, "score_range") || kwargs.score_range === null) return [-Infinity, Infinity];
  const value = kwargs.score_range;
  if (!Array.isArray(value) || value.length !== 2) fail(label, "score_range", "must be a pair [min, max]", value);
  const lo = value[0] === null ? -Infinity : toNumber(label, "score_range", value[0]);
  const hi = value[1] === null ? Infinity : toNumber(label, "score_range", value[1]);
  if (!(hi >= lo)) fail(label, "score_range", "must have min ≤ max", value);
  return [lo, hi];
}

/** The batch size: `batch_size`, or `train_batch_size` (Trace-Bench renames PrioritySearch's `batch_size`, spec §2.6). */
function batchSizeKwarg(kwargs: Kwargs, label: string): number {
  if (has(kwargs, "batch_size") && kwargs.batch_size !== null) return intKwarg(kwargs, label, "batch_size", 1, 1);
  return intKwarg(kwargs, label, "train_batch_size", 1, 1);
}

/** `num_threads`: like the trainer context, anything below 1 (or null) means 1. */
function threadsKwarg(kwargs: Kwargs, label: string): number {
  const n = numberKwarg(kwargs, label, "num_threads", 1);
  return n >= 1 ? Math.floor(n) : 1;
}

export interface OptionDefaults {
  readonly numCandidates?: number;
  readonly numProposals?: number;
}

/** Options of PrioritySearch (and the base of its variants) from resolved kwargs. */
export function readPrioritySearchOptions(kwargs: Kwargs, label: string, defaults: OptionDefaults = {}): PrioritySearchOptions {
  const scoreRange = scoreRangeKwarg(kwargs, label);
  const scoreFunctionRaw = has(kwargs, "score_function") && kwargs.score_function !== null ? kwargs.score_function : "mean";
  if (scoreFunctionRaw !== "mean" && scoreFunctionRaw !== "ucb" && scoreFunctionRaw !== "time") {
    fail(label, "score_function", "must be 'mean', 'ucb' or 'time'", scoreFunctionRaw);
  }
  const scoreFunction = scoreFunctionRaw as ScoreFunction;
  // 'ucb' with an infinite score_range (the default) is allowed, as in the reference: every
  // priority is then +∞ and exploration pops the newest candidates first.
  const memoryUpdateFrequency = has(kwargs, "memory_update_frequency") && kwargs.memory_update_frequency === null ? null : intKwarg(kwargs, label, "memory_update_frequency", 0, 0);
  const longTermMemorySize = sizeKwarg(kwargs, label, "long_term_memory_size");
  const shortTermMemorySize = sizeKwarg(kwargs, label, "short_term_memory_size");
  if (memoryUpdateFrequency === null && shortTermMemorySize === 0) {
    throw new TrainerKwargError(`${label}: short_term_memory_size must be null or > 0 when memory_update_frequency is null`);
  }
  // Every setting but null uses the long-term memory at least at iteration 0.
  if (memoryUpdateFrequency !== null && longTermMemorySize === 0) {
    throw new TrainerKwargError(`${label}: long_term_memory_size must be null or > 0 unless memory_update_frequency is null`);
  }
  return {
    label,
    numEpochs: intKwarg(kwargs, label, "num_epochs", 1, 0, 0),
    numSteps: intKwarg(kwargs, label, "num_steps", 0, 0, 0),
    batchSize: batchSizeKwarg(kwargs, label),
    numBatches: intKwarg(kwargs, label, "num_batches", 1, 1),
    // Trace raises num_candidates to the number of optimizers (one here).
    numCandidates: Math.max(1, intKwarg(kwargs, label, "num_candidates", defaults.numCandidates ?? 10, 0)),
    numProposals: intKwarg(kwargs, label, "num_proposals", defaults.numProposals ?? 1, 1),
    numThreads: threadsKwarg(kwargs, label),
    scoreRange,
    scoreFunction,
    ucbExplorationConstant: numberKwarg(kwargs, label, "ucb_exploration_constant", 1.0),
    validateExplorationCandidates: boolKwarg(kwargs, label, "validate_exploration_candidates", true),
    useBestCandidateToExplore: boolKwarg(kwargs, label, "use_best_candidate_to_explore", true),
    longTermMemorySize,
    shortTermMemorySize,
    memoryUpdateFrequency,
    decoupleOptimizers: boolKwarg(kwargs, label, "decouple_optimizers", true),
    validateProposals: true,
    defaultPriority: scoreRange[1],
    exploration: "priority",
  };
}
