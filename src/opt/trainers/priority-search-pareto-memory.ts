/**
 * PrioritySearch's memory under a Pareto objective (OpenTrace's `ParetoHeapMemory`): pushes and
 * the exploited best are the plain heap's, but a pop takes the 20 highest-priority entries,
 * ranks their mean score dicts (minimized metrics negated) into Pareto fronts, and returns the
 * front-0 entry with the highest weighted sum (the mean of its metrics when the objective has no
 * weights; the first in priority order on ties). When one of those 20 has no score dict yet, it
 * pops by priority alone, as the reference does.
 */
import type { ObjectiveConfig } from "../objectives/objective-config.js";
import { numpyMean } from "../objectives/numpy-order.js";
import { paretoRank } from "../objectives/pareto.js";
import { applyMinimize, weightedScalarize, type ScoreDict } from "../objectives/score-dicts.js";
import { candidateMeanScoreDict, HeapMemory, type MemoryEntry } from "./priority-search-memory.js";

/** How many of the highest priorities a Pareto pop chooses among (the reference's `pareto_k`). */
export const PARETO_POP_WINDOW = 20;

/** The reference's tie-break within the front: the weighted sum, or the plain mean of the metrics without weights. */
export function objectiveScalar(scores: ScoreDict, objective: ObjectiveConfig): number {
  if (Object.keys(objective.weights).length > 0) return weightedScalarize(scores, objective.weights, objective.missingValue);
  return numpyMean(Object.values(scores));
}

export class ParetoHeapMemory extends HeapMemory {
  constructor(
    size: number,
    private readonly objective: ObjectiveConfig,
  ) {
    super(size);
  }

  override pop(): MemoryEntry | undefined {
    const window = this.snapshot().slice(0, PARETO_POP_WINDOW);
    const dicts = window.map((entry) => candidateMeanScoreDict(entry.candidate));
    if (window.length === 0 || dicts.some((d) => d === null)) return super.pop();
    const normalized = dicts.map((d) => applyMinimize(d!, this.objective.minimize));
    const ranks = paretoRank(normalized, this.objective.paretoMetrics);
    let chosen = -1;
    for (const [i, rank] of ranks.entries()) {
      if (rank !== 0) continue;
      if (chosen < 0 || objectiveScalar(normalized[i]!, this.objective) > objectiveScalar(normalized[chosen]!, this.objective)) chosen = i;
    }
    const entry = window[chosen]!;
    this.entries.splice(this.entries.indexOf(entry), 1);
    return entry;
  }
}
