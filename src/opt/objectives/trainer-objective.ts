/**
 * What a search trainer needs to select by an objective, as the reference's trainers do: the
 * `objective_config` kwarg (absent or `mode: scalar` keeps the plain mean-score selection), each
 * example's score dict (`evaluate_vector`: the guide's named scores, `{score: x}` for a guide
 * without them, `{score: min_score}` — −∞ without one — for an example that failed), and a
 * candidate's dict, the per-metric mean over its examples.
 */
import type { Kwargs } from "../../config/kwargs.js";
import type { Rollout } from "../rollout.js";
import type { ObjectiveConfig } from "./objective-config.js";
import { objectiveConfigFromKwarg } from "./objective-config-kwarg.js";
import { aggregateScoreDicts, type ScoreDict } from "./score-dicts.js";
import { selectBest, selectTopK } from "./selection.js";

/** The objective a trainer selects by, or null to select on the mean score as before. */
export function selectionObjective(kwargs: Kwargs): ObjectiveConfig | null {
  const config = objectiveConfigFromKwarg(kwargs["objective_config"]);
  return config === null || config.mode === "scalar" ? null : config;
}

/** One example's score dict. */
export function exampleScoreDict(rollout: Rollout, minScore: number | null): ScoreDict {
  if (rollout.error !== undefined || rollout.score === null) return { score: minScore ?? Number.NEGATIVE_INFINITY };
  return rollout.scores ?? { score: rollout.score };
}

/** A candidate's score dict over its examples (empty when it has none). */
export function candidateScoreDict(rollouts: readonly Rollout[], minScore: number | null): ScoreDict {
  return aggregateScoreDicts(rollouts.map((r) => exampleScoreDict(r, minScore)));
}

/** The best of `dicts` under `objective` (a failed example's −∞ ranks last instead of stopping the run). */
export function bestByObjective(dicts: readonly ScoreDict[], objective: ObjectiveConfig): number {
  return selectBest(dicts, objective, { allowNegativeInfinity: true });
}

/** The `k` best of `dicts` under `objective`, best first. */
export function topKByObjective(dicts: readonly ScoreDict[], objective: ObjectiveConfig, k: number): number[] {
  return selectTopK(dicts, objective, k, { allowNegativeInfinity: true });
}

/**
 * A candidate's per-metric means as an IterationCompleted reports them: only a guide's named
 * metrics (not the `{score}` stand-in of a guide without them), only finite values (JSON has no
 * ±∞: a failed example's −∞ is no metric value); undefined when none is left.
 */
export function reportedMetricScores(dict: ScoreDict | undefined): Record<string, number> | undefined {
  if (dict === undefined) return undefined;
  const metrics = Object.keys(dict);
  if (metrics.length === 1 && metrics[0] === "score") return undefined;
  const kept: Record<string, number> = {};
  for (const metric of metrics) if (Number.isFinite(dict[metric])) kept[metric] = dict[metric]!;
  return Object.keys(kept).length > 0 ? kept : undefined;
}
