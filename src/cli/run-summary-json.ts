/**
 * `trace-bench run --json`: the closing summary as one JSON object on stdout, instead of the
 * closing lines (per-job lines and warnings go to stderr then, so stdout holds only this document).
 */
import { join } from "node:path";
import type { RunReport } from "../engine/run-invocation.js";
import { RUN_FILES } from "../events/projections/run-files.js";
import type { JobOutcomes } from "../events/projections/job-outcomes.js";
import { runClosing, type RunClosing } from "./run-closing.js";

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
  const { plan } = report;
  const context = { runId: plan.runId, runDir: plan.runDir, matrixJobs: plan.jobs.length, ranJobs: report.ranJobs, interrupted: report.interrupted, behind: report.behind };
  return closingJson(runClosing(report.state), context, exitCode, resumeCommand);
}

/** The document from the run's closing facts (run-closing.ts) and what this invocation did. */
export function closingJson(
  closing: RunClosing,
  context: { readonly runId: string; readonly runDir: string; readonly matrixJobs: number; readonly ranJobs: number; readonly interrupted: boolean; readonly behind: readonly string[] },
  exitCode: number,
  resumeCommand: string | null,
): RunSummaryJson {
  const dir = context.runDir;
  const spent = closing.spending;
  return {
    run_id: context.runId,
    run_dir: dir,
    status: context.interrupted ? "interrupted" : "finished",
    exit_code: exitCode,
    matrix_jobs: context.matrixJobs,
    ran_jobs: context.ranJobs,
    counts: Object.fromEntries(closing.tally),
    outcomes: closing.outcomes,
    files: Object.fromEntries(Object.entries(RUN_FILES).map(([key, path]) => [key, join(dir, path)])),
    llm: { calls: spent.calls, failed: spent.failed, aborted: spent.aborted, ...spent.tokens, cost_usd: spent.cost },
    behind: [...context.behind],
    resume_command: context.interrupted ? resumeCommand : null,
  };
}
