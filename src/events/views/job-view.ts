/**
 * A job's view: its latest attempt as the job projections leave it (one object per job, which
 * every job projection folds into), and the finished attempt it records.
 */
import type { EventData, JobSpecRecord } from "../event-schema.js";
import { NO_COST, NO_TOKENS, zeroCost, zeroTokens, type CostTotal, type TokenTotals } from "./totals.js";

export type RunStartedData = EventData<"RunStarted">;
export type JobFinishedData = EventData<"JobFinished">;
export type EvaluationData = EventData<"EvaluationCompleted">;
export type IterationData = EventData<"IterationCompleted">;

/** When an iteration was recorded, and the attempt's tokens by then (null while they are estimates: the stub). */
export interface IterationMark {
  readonly wall_time: number;
  readonly total_tokens: number | null;
}

export interface JobView {
  readonly job_id: string;
  spec: JobSpecRecord;
  /** Attempt number of the latest execution (0 = never queued). */
  attempt: number;
  /** The job machine's state in the latest attempt. */
  state: string;
  evaluations: Partial<Record<EvaluationData["phase"], EvaluationData>>;
  iterations: IterationData[];
  /** One per iteration of the latest attempt (for TensorBoard's wall time and token scalars). */
  iterationMarks: IterationMark[];
  /** Iterations of the latest attempt (kept when the view is released, unlike the list). */
  iterationCount: number;
  /** LLM calls of the latest attempt: answered (replayed included), failed, aborted; unusable replies. */
  llmCalls: number;
  llmErrors: number;
  llmAborted: number;
  replayedCalls: number;
  unusableReplies: number;
  /** Tokens and cost of the latest attempt's answered calls (replayed included: what its result used). */
  tokens: TokenTotals;
  cost: CostTotal;
  estimatedTokens: boolean;
  /** The latest attempt that finished, with what that attempt did. */
  finished: FinishedAttempt | null;
  /** Tokens and cost billed in every attempt, finished or not (replayed replies excluded): what the run spent. */
  allAttemptTokens: TokenTotals;
  allAttemptCost: CostTotal;
  /**
   * The job's human-readable log (`stdout.log`): one line per event of every attempt, rendered as
   * each event is applied, so the view keeps no event once it is folded (memory stays flat in
   * the number of events; a re-run reads its job's history from the log).
   */
  log: string;
  /** Seq of the job's latest event (0 before any): what its files were rendered from. */
  lastSeq: number;
  /** Its files were written and what only they need was dropped (views/view-memory.ts). */
  released: boolean;
}

export interface FinishedAttempt extends JobFinishedData {
  readonly no_search: boolean;
  readonly ts: string;
  readonly tokens: TokenTotals;
  readonly llm_calls: number;
  readonly llm_errors: number;
  readonly replayed_calls: number;
  readonly unusable_replies: number;
  /** USD, or null when a call's model has no price. */
  readonly cost_usd: number | null;
  readonly estimated_tokens: boolean;
  readonly iterations: readonly IterationData[];
  readonly iteration_count: number;
  readonly iteration_marks: readonly IterationMark[];
}

/**
 * A finished attempt: `base` with the fields `set` gives, built field by field in one fixed order
 * (the event's fields, then the attempt's totals), so that every job's object shares one hidden
 * class in V8 (see docs/performance.md).
 */
export function finishedAttempt(base: JobFinishedData & Partial<FinishedAttempt>, set: Partial<FinishedAttempt>): FinishedAttempt {
  return {
    attempt: or(set.attempt, base.attempt),
    status: or(set.status, base.status),
    feedback: or(set.feedback, base.feedback),
    score_val_initial: or(set.score_val_initial, base.score_val_initial),
    score_val_final: or(set.score_val_final, base.score_val_final),
    score_val: or(set.score_val, base.score_val),
    score_test: or(set.score_test, base.score_test),
    time_seconds: or(set.time_seconds, base.time_seconds),
    resolved: or(set.resolved, base.resolved),
    agent: or(set.agent, base.agent),
    parameters: or(set.parameters, base.parameters),
    initial_values: or(set.initial_values, base.initial_values),
    final_values: or(set.final_values, base.final_values),
    best_values: or(set.best_values, base.best_values),
    // Only ever recorded as true: absent (older logs, a job that searched) reads false.
    no_search: or(set.no_search, base.no_search) === true,
    // Absent (older logs, a single-score guide) stays absent; a snapshot gives it back as null.
    metrics: or(set.metrics, base.metrics) ?? undefined,
    ts: or(set.ts, base.ts),
    tokens: or(set.tokens, base.tokens),
    llm_calls: or(set.llm_calls, base.llm_calls),
    llm_errors: or(set.llm_errors, base.llm_errors),
    replayed_calls: or(set.replayed_calls, base.replayed_calls),
    unusable_replies: or(set.unusable_replies, base.unusable_replies),
    cost_usd: or(set.cost_usd, base.cost_usd),
    estimated_tokens: or(set.estimated_tokens, base.estimated_tokens),
    iterations: or(set.iterations, base.iterations),
    iteration_count: or(set.iteration_count, base.iteration_count),
    iteration_marks: or(set.iteration_marks, base.iteration_marks),
  };
}

/** `value` unless it is absent (null is a value). */
const or = <T>(value: T | undefined, otherwise: T | undefined): T => (value !== undefined ? value : otherwise) as T;

/** Empty, read-only containers for views with nothing in them (never queued, or released). */
export const NO_EVALUATIONS: JobView["evaluations"] = Object.freeze({});
export const EMPTY_LIST: readonly never[] = Object.freeze([]);
export const NO_ITERATIONS = EMPTY_LIST as unknown as IterationData[];
export const NO_MARKS = EMPTY_LIST as unknown as IterationMark[];

/** What a finished attempt holds only for its job's own files (a released view's attempt holds them empty). */
export const NO_FINISHED_DETAIL = {
  parameters: EMPTY_LIST,
  initial_values: null,
  final_values: null,
  best_values: null,
  iterations: NO_ITERATIONS,
  iteration_marks: NO_MARKS,
} as const satisfies Partial<FinishedAttempt>;

/** Gives `view` totals of its own where it shares the zero ones, before a call is added to them. */
export function ownTotals(view: JobView): void {
  if (view.tokens === NO_TOKENS) view.tokens = zeroTokens();
  if (view.cost === NO_COST) view.cost = zeroCost();
  if (view.allAttemptTokens === NO_TOKENS) view.allAttemptTokens = zeroTokens();
  if (view.allAttemptCost === NO_COST) view.allAttemptCost = zeroCost();
}

export function newJobView(spec: JobSpecRecord): JobView {
  return {
    job_id: spec.job_id,
    spec,
    attempt: 0,
    state: "queued",
    evaluations: NO_EVALUATIONS,
    iterations: NO_ITERATIONS,
    iterationMarks: NO_MARKS,
    iterationCount: 0,
    llmCalls: 0,
    llmErrors: 0,
    llmAborted: 0,
    replayedCalls: 0,
    unusableReplies: 0,
    tokens: NO_TOKENS,
    cost: NO_COST,
    estimatedTokens: false,
    finished: null,
    allAttemptTokens: NO_TOKENS,
    allAttemptCost: NO_COST,
    log: "",
    lastSeq: 0,
    released: false,
  };
}
