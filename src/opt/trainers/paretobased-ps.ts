/**
 * ParetobasedPS (algorithms reference §3.12): PrioritySearch whose exploration candidates are the
 * Pareto frontier of per-task scores (priority-search-pareto.ts) rather than the top priorities;
 * exploitation (the best mean) is unchanged. The frontier replaces the whole exploration step, so
 * `use_best_candidate_to_explore` has no effect and is not offered. This is what the pinned
 * Trace-Bench harness runs for the names GEPA-Base, GEPA-UCB and GEPA-Beam (parity scenario
 * gepa-names-harness); trace-bench keeps those names for the GEPA algorithm (gepa.ts).
 */
import type { Kwargs } from "../../config/kwargs.js";
import type { Trainer } from "../trainer.js";
import { readPrioritySearchOptions, type PrioritySearchOptions } from "./priority-search-options.js";
import { PRIORITY_SEARCH_KWARGS, runPrioritySearch } from "./priority-search.js";

export const PARETOBASED_PS_KWARGS: readonly string[] = PRIORITY_SEARCH_KWARGS.filter((k) => k !== "use_best_candidate_to_explore");

export function readParetobasedOptions(kwargs: Kwargs): PrioritySearchOptions {
  return { ...readPrioritySearchOptions(kwargs, "ParetobasedPS"), exploration: "pareto" };
}

export const paretobasedPsTrainer: Trainer = {
  id: "ParetobasedPS",
  kwargs: PARETOBASED_PS_KWARGS,
  train(context) {
    return runPrioritySearch(context, readParetobasedOptions(context.kwargs));
  },
};
