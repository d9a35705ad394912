/**
 * `trace-bench run --json`: the closing summary as one JSON object on stdout, instead of the
 * closing lines (per-job lines and warnings go to stderr then, so stdout holds only this document).
 */
import { join } from "node:path";
import type { RunReport } from "../engine/run-invocation.js";
import { RUN_FILES } from "../events/projections/run-files.js";
import { reportedCost, zeroTokens } from "../events/run-state.js";

export interface RunSummaryJson {
  readonly run_id: string;
  readonly run_dir: string;
  readonly status: "finished" | "interrupted";
  readonly exit_code: number;
  readonly matrix_jobs: number;
  readonly ran_jobs: number;
  readonly counts: Record<string, number>;
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
  const tokens = zeroTokens();
  let calls = 0;
  let failed = 0;
  let aborted = 0;
  let usd = 0;
  let unknown = false;
  for (const use of report.state.llmByModel.values()) {
    calls += use.calls;
    failed += use.failed;
    aborted += use.aborted;
    tokens.prompt_tokens += use.tokens.prompt_tokens;
    tokens.completion_tokens += use.tokens.completion_tokens;
    tokens.total_tokens += use.tokens.total_tokens;
    usd += use.cost.usd;
    unknown ||= use.cost.unknown;
  }
  return {
    run_id: report.plan.runId,
    run_dir: dir,
    status: report.interrupted ? "interrupted" : "finished",
    exit_code: exitCode,
    matrix_jobs: report.plan.jobs.length,
    ran_jobs: report.ranJobs,
    counts,
    files: Object.fromEntries(Object.entries(RUN_FILES).map(([key, path]) => [key, join(dir, path)])),
    llm: { calls, failed, aborted, ...tokens, cost_usd: reportedCost({ usd, unknown }) },
    behind: [...report.behind],
    resume_command: report.interrupted ? resumeCommand : null,
  };
}
