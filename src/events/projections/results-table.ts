/**
 * The results table (spec §4.8): one row per job (its latest finished attempt), the original's
 * 33 columns in order, then trace-bench's own columns.
 */
import type { LlmInfo } from "../event-schema.js";
import type { FinishedAttempt, JobView, RunState } from "../run-state.js";
import { variantLabel } from "../../config/variant-label.js";
import { jobLlmInfo } from "./job-llm-info.js";
import { stateFiles, tbDir } from "./job-paths.js";
import { metricCells, metricColumns, metricsOfRows } from "./metric-columns.js";

export const RESULT_COLUMNS = [
  "run_id",
  "job_id",
  "task_id",
  "suite",
  "trainer_id",
  "seed",
  "status",
  "score_val_initial",
  "score_val_final",
  "score_val",
  "score_test",
  "time_seconds",
  "resolved_optimizer",
  "resolved_guide",
  "resolved_logger",
  "resolved_trainer_kwargs",
  "resolved_optimizer_kwargs",
  "resolved_guide_kwargs",
  "resolved_logger_kwargs",
  "eval_kwargs",
  "feedback",
  "llm_provider",
  "llm_model",
  "llm_base_url",
  "token_scope",
  "prompt_tokens",
  "completion_tokens",
  "total_tokens",
  "initial_state_path",
  "best_state_path",
  "final_state_path",
  "state_history_path",
  "tb_logdir",
  // trace-bench's own, after the original's:
  "iterations",
  "llm_calls",
  "tokens_estimated",
  "llm_errors",
  "unusable_replies",
  "replayed_calls",
  "cost_usd",
  "llm_agent_model",
  // The params variant's label (src/config/variant-label.ts): part of every comparison key.
  "variant",
] as const;

export type ResultColumn = (typeof RESULT_COLUMNS)[number];
/** A job's row: the columns above, then its per-metric columns when its guide names metrics (metric-columns.ts). */
export type ResultRow = Record<ResultColumn, unknown>;

export const RESULT_COLUMN_SET: ReadonlySet<string> = new Set(RESULT_COLUMNS);

/** The columns of a table of `rows`: the fixed ones, then one per metric and phase when some row has metrics. */
export function resultColumns(rows: Iterable<ResultRow>): readonly string[] {
  const metrics = metricsOfRows(rows, RESULT_COLUMN_SET);
  return metrics.length === 0 ? RESULT_COLUMNS : [...RESULT_COLUMNS, ...metricColumns(metrics)];
}

/** Columns written as Python floats (`-3.0`, not `-3`). */
export const FLOAT_COLUMNS: ReadonlySet<ResultColumn> = new Set(["score_val_initial", "score_val_final", "score_val", "score_test", "time_seconds"]);

/** Every LLM call made through trace-bench's metered LLM port, optimizer and agent alike. */
export const TOKEN_SCOPE = "all_metered_llm_calls";

/** The seven `resolved_*` columns of a finished attempt, in report order. */
export function resolvedColumns(resolved: FinishedAttempt["resolved"]) {
  return {
    resolved_optimizer: resolved.optimizer,
    resolved_guide: resolved.guide,
    resolved_logger: resolved.logger,
    resolved_trainer_kwargs: resolved.trainer_kwargs,
    resolved_optimizer_kwargs: resolved.optimizer_kwargs,
    resolved_guide_kwargs: resolved.guide_kwargs,
    resolved_logger_kwargs: resolved.logger_kwargs,
  };
}

/** What a job's row and files take from the run besides the job's own events: its id and latest start (the LLM columns). */
export type JobRenderContext = Pick<RunState, "runId" | "started">;

export function resultRow(state: JobRenderContext, job: JobView): ResultRow | null {
  const done = job.finished;
  if (done === null) return null;
  const llm: LlmInfo = jobLlmInfo(state.started?.llm, job.spec);
  return {
    run_id: state.runId,
    job_id: job.job_id,
    task_id: job.spec.task_id,
    suite: job.spec.suite,
    trainer_id: job.spec.trainer_id,
    seed: job.spec.seed,
    status: done.status,
    score_val_initial: done.score_val_initial,
    score_val_final: done.score_val_final,
    score_val: done.score_val,
    score_test: done.score_test,
    time_seconds: Math.round(done.time_seconds * 1e6) / 1e6,
    ...resolvedColumns(done.resolved),
    eval_kwargs: job.spec.resolved_kwargs.eval_kwargs,
    feedback: done.feedback,
    llm_provider: llm.llm_provider,
    llm_model: llm.llm_model,
    llm_base_url: llm.llm_base_url,
    token_scope: TOKEN_SCOPE,
    prompt_tokens: done.tokens.prompt_tokens,
    completion_tokens: done.tokens.completion_tokens,
    total_tokens: done.tokens.total_tokens,
    ...stateFiles(job.job_id),
    tb_logdir: tbDir(job.job_id),
    iterations: done.iteration_count,
    llm_calls: done.llm_calls,
    tokens_estimated: done.estimated_tokens,
    llm_errors: done.llm_errors,
    unusable_replies: done.unusable_replies,
    replayed_calls: done.replayed_calls,
    cost_usd: done.cost_usd,
    llm_agent_model: llm.llm_agent_model ?? llm.llm_model,
    variant: variantLabel(job.spec.raw_params),
    ...metricCells(done, RESULT_COLUMN_SET),
  };
}

/** The table's rows, held at once (a small run's readers: `compare`, tests). */
export function resultRows(state: RunState): ResultRow[] {
  return [...resultRowsOf(state)];
}

/**
 * The table's rows in report order, made one at a time as they are read, and made again by each
 * reading: what reads them keeps what it needs of each row, so a big run's table (about 1 KB a
 * row) is never held whole.
 */
export function resultRowsOf(state: RunState): Iterable<ResultRow> {
  return {
    *[Symbol.iterator]() {
      for (const jobId of state.order) {
        const row = resultRow(state, state.jobs.get(jobId)!);
        if (row !== null) yield row;
      }
    },
  };
}
