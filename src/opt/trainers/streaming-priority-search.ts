/**
 * StreamingPrioritySearch (algorithms reference §3.9): PrioritySearch without a validation step.
 * New candidates enter memory without rollouts at the default priority (the upper end of
 * `score_range`), so they are explored next; their statistics come only from later exploration
 * batches. Each iteration the exploration rollouts are credited to their candidates exactly once
 * (the experimental branch credits them up to three times, quirk 13), and only K (candidate,
 * sub-batch) pairs are improved:
 *   K = max(1, floor(num_candidates · exploration_ratio / num_proposals)), raised when memory would
 *   run dry (K·P + available < num_candidates), capped at floor(num_candidates / num_proposals),
 * sampled without replacement with softmax(priority / exploration_temperature) weights
 * (temperature ≤ 0: the K highest priorities). num_proposals is lowered to
 * floor(num_candidates · exploration_ratio) (at least 1) when it exceeds that.
 * Cost per iteration ≥ 1: K·P optimizer calls, E·B·K agent+guide calls.
 */
import type { Kwargs } from "../../config/kwargs.js";
import type { Trainer } from "../trainer.js";
import { numberKwarg, readPrioritySearchOptions, TrainerKwargError, type PrioritySearchOptions } from "./priority-search-options.js";
import { PRIORITY_SEARCH_KWARGS, runPrioritySearch } from "./priority-search.js";

export const STREAMING_PRIORITY_SEARCH_KWARGS: readonly string[] = [...PRIORITY_SEARCH_KWARGS, "exploration_ratio", "exploration_temperature"];

export function readStreamingOptions(kwargs: Kwargs, label = "StreamingPrioritySearch"): PrioritySearchOptions {
  const base = readPrioritySearchOptions(kwargs, label);
  const ratio = numberKwarg(kwargs, label, "exploration_ratio", 0.5);
  if (!(ratio > 0 && ratio <= 1)) throw new TrainerKwargError(`${label}: exploration_ratio must be in (0, 1], got ${ratio}`);
  const temperature = numberKwarg(kwargs, label, "exploration_temperature", 1.0);
  return { ...base, validateProposals: false, streaming: { ratio, temperature } };
}

export const streamingPrioritySearchTrainer: Trainer = {
  id: "StreamingPrioritySearch",
  kwargs: STREAMING_PRIORITY_SEARCH_KWARGS,
  train(context) {
    return runPrioritySearch(context, readStreamingOptions(context.kwargs));
  },
};
