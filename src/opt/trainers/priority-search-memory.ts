/**
 * PrioritySearch's candidates and memories (algorithms reference §3.8).
 *
 * A candidate is a full set of parameter values with the optimizer that produced it and the
 * scores of every rollout credited to it. Memories keep only scores (Trace's "compressed"
 * long-term candidates): proposals are always made from the fresh exploration rollouts of the
 * current iteration, so nothing ever reads an older rollout's response or feedback.
 *
 * `HeapMemory` is a max-priority queue with an *exact* top-k bound (Trace truncates the heap
 * array instead, quirk 6). Equal priorities pop the most recently created candidate first.
 */
import type { Optimizer } from "../optimizer.js";
import type { Rollout } from "../rollout.js";
import type { ParameterValues } from "../../domain/parameter.js";
import { aggregateScoreDicts, type ScoreDict } from "../objectives/score-dicts.js";

export interface SearchCandidate {
  /** Creation order (Trace's `created_time`): later candidates have larger ids. */
  readonly id: number;
  readonly values: ParameterValues;
  /** The optimizer (with its memory) that proposed these values; shared by the initial candidates. */
  readonly optimizer: Optimizer;
  /** The candidate these values were proposed from (null for the initial agent). */
  readonly parentId: number | null;
  /** Scores of all rollouts credited to this candidate (null = the rollout was invalid). */
  readonly scores: (number | null)[];
  /** The input of each credited rollout, parallel to `scores` (ParetobasedPS scores per task). */
  readonly inputs: unknown[];
  /**
   * With an objective: each credited rollout's score dict, parallel to `scores`; null where the
   * reference has none (exploration rollouts, failed examples).
   */
  readonly scoreDicts?: (ScoreDict | null)[];
  /** Every credited rollout, kept only when a variant asks (POLCA's summarizer reads them). */
  readonly rollouts?: Rollout[];
}

/** Trace's `mean_score_dict`: the per-metric mean over the rollouts that have a dict; null without any. */
export function candidateMeanScoreDict(candidate: SearchCandidate): ScoreDict | null {
  const dicts = (candidate.scoreDicts ?? []).filter((d): d is ScoreDict => d !== null);
  return dicts.length === 0 ? null : aggregateScoreDicts(dicts);
}

/** Trace's `ModuleCandidate.mean_score`: mean of the non-null scores; null without any. */
export function candidateMean(candidate: SearchCandidate): number | null {
  let sum = 0;
  let n = 0;
  for (const s of candidate.scores) {
    if (s === null) continue;
    sum += s;
    n += 1;
  }
  return n === 0 ? null : sum / n;
}

/** Number of valid (non-null) scores. */
export function scoredCount(candidate: SearchCandidate): number {
  return candidate.scores.reduce<number>((n, s) => (s === null ? n : n + 1), 0);
}

export interface MemoryEntry {
  readonly priority: number;
  readonly candidate: SearchCandidate;
}

/** A priority as a sortable number: NaN counts as the lowest. */
function rankable(priority: number): number {
  return Number.isNaN(priority) ? -Infinity : priority;
}

/** Negative when `a` should pop before `b`: higher priority first, then the more recent candidate. */
export function compareEntries(a: MemoryEntry, b: MemoryEntry): number {
  const pa = rankable(a.priority);
  const pb = rankable(b.priority);
  if (pa !== pb) return pa > pb ? -1 : 1;
  return b.candidate.id - a.candidate.id;
}

export class HeapMemory {
  protected entries: MemoryEntry[] = [];

  /** @param size the most candidates kept (Infinity: unbounded). */
  constructor(readonly size: number = Infinity) {
    if (!(size >= 0)) throw new Error(`memory size must be a non-negative number, got ${size}`);
  }

  get length(): number {
    return this.entries.length;
  }

  /** Adds a candidate; beyond `size`, the lowest-ranked entries are dropped (an exact top-k). */
  push(priority: number, candidate: SearchCandidate): void {
    this.entries.push({ priority, candidate });
    if (this.entries.length > this.size) {
      this.entries.sort(compareEntries);
      this.entries.length = this.size;
    }
  }

  /** Removes and returns the highest-ranked entry. */
  pop(): MemoryEntry | undefined {
    if (this.entries.length === 0) return undefined;
    let top = 0;
    for (let i = 1; i < this.entries.length; i++) if (compareEntries(this.entries[i]!, this.entries[top]!) < 0) top = i;
    return this.entries.splice(top, 1)[0];
  }

  /** Removes a candidate (by identity); true when it was there. */
  remove(candidate: SearchCandidate): boolean {
    const i = this.entries.findIndex((e) => e.candidate === candidate);
    if (i < 0) return false;
    this.entries.splice(i, 1);
    return true;
  }

  /**
   * The entry maximising `criterion` without removing it. A null criterion ranks below every
   * number (Trace maps None to 0, which would prefer an unscored candidate over negative
   * scores); ties go to the higher priority, then the more recent candidate.
   */
  best(criterion: (candidate: SearchCandidate) => number | null): MemoryEntry | undefined {
    let best: MemoryEntry | undefined;
    let bestValue = -Infinity;
    let bestScored = false;
    for (const entry of this.entries) {
      const value = criterion(entry.candidate);
      const scored = value !== null && !Number.isNaN(value);
      const v = scored ? value : -Infinity;
      const better =
        best === undefined ||
        (scored && !bestScored) ||
        (scored === bestScored && (v > bestValue || (v === bestValue && compareEntries(entry, best) < 0)));
      if (better) {
        best = entry;
        bestValue = v;
        bestScored = scored;
      }
    }
    return best;
  }

  /** Removes and returns every entry (highest-ranked first). */
  drain(): MemoryEntry[] {
    const out = [...this.entries].sort(compareEntries);
    this.entries = [];
    return out;
  }

  /** The entries, highest-ranked first. */
  snapshot(): MemoryEntry[] {
    return [...this.entries].sort(compareEntries);
  }
}

/**
 * Trace's two memories and `memory_update_frequency`: null → short-term only; 0 → long-term only;
 * k > 0 → the short-term memory, except every k-th iteration, when the short-term memory is
 * merged into the long-term one and the long-term memory is used for that iteration.
 */
export class SearchMemories {
  readonly longTerm: HeapMemory;
  readonly shortTerm: HeapMemory;

  constructor(
    longTermSize: number,
    shortTermSize: number,
    readonly updateFrequency: number | null,
    /** Builds each memory (a Pareto objective pops from the front: priority-search-pareto-memory.ts). */
    memory: (size: number) => HeapMemory = (size) => new HeapMemory(size),
  ) {
    this.longTerm = memory(longTermSize);
    this.shortTerm = memory(shortTermSize);
  }

  /** The memory of iteration `nIters` (merging the short-term memory into the long-term one when due). */
  current(nIters: number): HeapMemory {
    const k = this.updateFrequency;
    if (k === null) return this.shortTerm;
    if (k === 0 || this.shortTerm.size === 0) return this.longTerm;
    if (nIters % k === 0) {
      for (const entry of this.shortTerm.drain()) this.longTerm.push(entry.priority, entry.candidate);
      return this.longTerm;
    }
    return this.shortTerm;
  }
}
