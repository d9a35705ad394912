/**
 * `trace-bench run --json`: the closing summary as one JSON object on stdout, instead of the
 * closing lines (per-job lines and warnings go to stderr then, so stdout holds only this document).
 */
import { join } from "node:path";
import type { RunReport } from "../engine/run-invocation.js";
import { RUN_FILES } from "../events/projections/run-files.js";
import { llmSpending } from "./console-format.js";
import { jobOutcomes, type JobOutcomes } from "../events/projections/job-outcomes.js";

export interface RunSummaryJson {
  readonly run_id: string;
  readonly run_dir: string;
  readonly status: "finished" | "interrupted";
  readonly exit_code: number;
  readonly matrix_jobs: number;
  readonly ran_jobs: number;
  readonly counts: Record<string, number>;
  /** Jobs that improved on their initial score, found no valid candidate, did no search. */
  readonly outcomes: JobOutcomes;
  /** Every run-level report, by the key files_index.json uses, as a path under run_dir. */
  readonly files: Record<string, string>;
  /** LLM use over every attempt (replayed replies excluded); cost_usd null when a model has no price. */
  readonly llm: { calls: number; failed: number; aborted: number; prompt_tokens: number; completion_tokens: number; total_tokens: number; cost_usd: number | null };
  /** Reports behind the log (rebuild them with `trace-bench replay <run_dir>`). */
  readonly behind: readonly string[];
  readonly resume_command: string | null;
}

export function runSummaryJson(report: RunReport, exitCode: number, resumeCommand: string | null): RunSummaryJson {
  const dir = report.plan.runDir;
  const counts: Record<string, number> = {};
  for (const job of report.state.orderedJobs()) {
    const status = job.finished?.status ?? "not_executed";
    counts[status] = (counts[status] ?? 0) + 1;
  }
  const spent = llmSpending(report.state);
  return {
    run_id: report.plan.runId,
    run_dir: dir,
    status: report.interrupted ? "interrupted" : "finished",
    exit_code: exitCode,
    matrix_jobs: report.plan.jobs.length,
    ran_jobs: report.ranJobs,
    counts,
    outcomes: jobOutcomes(report.state.orderedJobs()),
    files: Object.fromEntries(Object.entries(RUN_FILES).map(([key, path]) => [key, join(dir, path)])),
    llm: { calls: spent.calls, failed: spent.failed, aborted: spent.aborted, ...spent.tokens, cost_usd: spent.cost },
    behind: [...report.behind],
    resume_command: report.interrupted ? resumeCommand : null,
  };
}
