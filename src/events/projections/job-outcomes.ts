/**
 * What a run's jobs amount to beyond their statuses: how many improved on their initial score,
 * how many found no valid candidate, and which did no search (their optimizer never proposed a
 * change). Read by summary.json, `run --json` and the closing lines.
 */
import type { FinishedAttempt } from "../run-state.js";

export interface JobOutcomes {
  /** Jobs with both an initial and a final score. */
  readonly scored: number;
  /** Of those, the jobs whose final score is above their initial one. */
  readonly improved: number;
  readonly no_valid_candidate: number;
  /** Jobs whose optimizer was asked and never proposed a change, in matrix order. */
  readonly no_search: readonly string[];
}

export function jobOutcomes(jobs: Iterable<{ readonly job_id: string; readonly finished: FinishedAttempt | null }>): JobOutcomes {
  let scored = 0;
  let improved = 0;
  let invalid = 0;
  const noSearch: string[] = [];
  for (const job of jobs) {
    const f = job.finished;
    if (f === null) continue;
    if (f.score_val_initial !== null && f.score_val_final !== null) {
      scored += 1;
      if (f.score_val_final > f.score_val_initial) improved += 1;
    }
    if (f.status === "no_valid_candidate") invalid += 1;
    if (f.no_search) noSearch.push(job.job_id);
  }
  return { scored, improved, no_valid_candidate: invalid, no_search: noSearch };
}

/** The closing line about them (stub: why a stub run may not search). */
export function outcomesLine(outcomes: JobOutcomes, stub: boolean): string {
  const parts = [`${outcomes.improved} of ${outcomes.scored} scored job${outcomes.scored === 1 ? "" : "s"} improved on ${outcomes.scored === 1 ? "its" : "their"} initial score`];
  if (outcomes.no_valid_candidate > 0) {
    parts.push(`${outcomes.no_valid_candidate} no_valid_candidate (every candidate kept failed to evaluate: the task's failure value or no score; not ranked)`);
  }
  const n = outcomes.no_search.length;
  if (n > 0) {
    const why = stub ? "; the stub LLM has no alternative to offer for their parameters and answers TERMINATE" : "";
    parts.push(`${n} job${n === 1 ? "" : "s"} did no search (the optimizer never proposed a change${why})`);
  }
  return `Outcomes: ${parts.join("; ")}`;
}
