/**
 * What `run`'s closing block says about the run's state, as plain data: the statuses, outcomes,
 * scores table and LLM spending. The closing lines, `--json` and the exit code are made from it.
 * It is JSON-safe because a finished run records it (finished-run-record.ts), so that a re-run
 * with nothing to do prints the same block without folding the log again.
 */
import { aggregateRows } from "../events/projections/aggregates.js";
import { jobOutcomes, type JobOutcomes } from "../events/projections/job-outcomes.js";
import { resultRowsOf } from "../events/projections/results-table.js";
import type { RunState } from "../events/run-state.js";
import { llmSpending, type LlmSpending } from "./console-format.js";
import { scoresTable } from "./scores-table.js";

export interface RunClosing {
  /** How many jobs ended in each status (`not_executed`: never finished), in the order statuses first appear in the matrix. */
  readonly tally: readonly (readonly [string, number])[];
  /** Jobs finished other than by cancellation (what an interrupted run says is done). */
  readonly done: number;
  readonly outcomes: JobOutcomes;
  /** The scores table's lines (scores-table.ts). */
  readonly scores: readonly string[];
  readonly spending: LlmSpending;
  readonly stub: boolean;
  /** Some job ended without a result it was asked for: the run exits 1. */
  readonly unsuccessful: boolean;
}

/** A job ending so leaves the run without a result it was asked for: the run exits 1. */
export const UNSUCCESSFUL: readonly string[] = ["failed", "timeout", "cancelled", "no_valid_candidate"];

export function runClosing(state: RunState): RunClosing {
  const jobs = state.orderedJobs();
  const counts = new Map<string, number>();
  let done = 0;
  let unsuccessful = false;
  for (const job of jobs) {
    const status = job.finished?.status ?? "not_executed";
    counts.set(status, (counts.get(status) ?? 0) + 1);
    if (job.finished !== null && job.finished.status !== "cancelled") done += 1;
    if (job.finished !== null && UNSUCCESSFUL.includes(job.finished.status)) unsuccessful = true;
  }
  return {
    tally: [...counts],
    done,
    outcomes: jobOutcomes(jobs),
    scores: scoresTable(aggregateRows(resultRowsOf(state))),
    spending: llmSpending(state),
    stub: state.started?.mode === "stub",
    unsuccessful,
  };
}

const isCount = (x: unknown): x is number => typeof x === "number" && Number.isInteger(x) && x >= 0;
const isStrings = (x: unknown): x is string[] => Array.isArray(x) && x.every((s) => typeof s === "string");

/** Whether `value` (read back from a record) has a closing's shape; anything else is not used. */
export function isRunClosing(value: unknown): value is RunClosing {
  if (typeof value !== "object" || value === null) return false;
  const c = value as Record<string, unknown>;
  const outcomes = c.outcomes as Record<string, unknown> | null | undefined;
  const spending = c.spending as Record<string, unknown> | null | undefined;
  const tokens = spending?.tokens as Record<string, unknown> | null | undefined;
  return (
    Array.isArray(c.tally) &&
    c.tally.every((entry) => Array.isArray(entry) && entry.length === 2 && typeof entry[0] === "string" && isCount(entry[1])) &&
    isCount(c.done) &&
    typeof outcomes === "object" && outcomes !== null &&
    isCount(outcomes.scored) && isCount(outcomes.improved) && isCount(outcomes.no_valid_candidate) && isStrings(outcomes.no_search) &&
    isStrings(c.scores) &&
    typeof spending === "object" && spending !== null &&
    isCount(spending.calls) && isCount(spending.failed) && isCount(spending.aborted) &&
    (spending.cost === null || typeof spending.cost === "number") &&
    typeof tokens === "object" && tokens !== null &&
    isCount(tokens.prompt_tokens) && isCount(tokens.completion_tokens) && isCount(tokens.total_tokens) &&
    typeof c.stub === "boolean" &&
    typeof c.unsuccessful === "boolean"
  );
}
