/**
 * What the phases of one attempt share: the job, its services and recorder, the attempt's signal
 * and LLM calls, what it has established so far (`progress`, which a timeout or cancel reports as
 * it stands), and what building hands on to the phases after it.
 */
import type { JobSpec } from "../../config/matrix.js";
import type { ParameterValues } from "../../domain/parameter.js";
import type { TaskBundle } from "../../domain/task-bundle.js";
import type { JobCalls } from "../../llm/job-calls.js";
import type { TaskCalls } from "../../llm/task-calls.js";
import { toPlain } from "../../config/kwargs.js";
import type { Trainer } from "../../opt/trainer.js";
import type { DatasetScore, ScoreOptions } from "../../tasks/score-dataset.js";
import type { TaskCallContext } from "../../domain/task-call-context.js";
import type { AttemptAbort } from "../attempt-abort.js";
import type { CandidateLedger } from "../candidate-ledger.js";
import type { JobFact, JobOutcome } from "../job-decider.js";
import type { JobRecorder } from "../job-recorder.js";
import { resolvedMetadata, type ResolvedMetadata } from "../resolved-metadata.js";
import type { LlmSource, RunLog, TaskSource, TrainerSource } from "../run-services.js";

/** The services an attempt works with (the run's, or a test's). */
export interface JobServices {
  readonly log: RunLog["Type"];
  readonly tasks: TaskSource["Type"];
  readonly trainers: TrainerSource["Type"];
  readonly llm: LlmSource["Type"];
}

/** What the attempt has established so far; a timeout or cancel reports it as it stands. */
export interface Progress {
  bundle: TaskBundle | null;
  initial: ParameterValues | null;
  initialScore: DatasetScore | null;
  latest: ParameterValues | null;
  final: DatasetScore | null;
  test: DatasetScore | null;
  best: ParameterValues | null;
  /** The feedback an `ok` job reports: its final evaluation's. */
  feedback: string;
  /** The job's resolved optimizer, guide and logger with their kwargs, once its task is loaded. */
  resolved: ResolvedMetadata | null;
  /** Training ended and its optimizer never proposed a change. */
  noSearch: boolean;
}

export const noProgress = (): Progress => ({ bundle: null, initial: null, initialScore: null, latest: null, final: null, test: null, best: null, feedback: "", resolved: null, noSearch: false });

/** What `building` establishes for the phases after it. */
export interface Built {
  readonly trainer: Trainer;
  readonly bundle: TaskBundle;
  /** The split of the initial and final evaluations. */
  readonly split: { readonly name: string; readonly dataset: TaskBundle["train_dataset"] };
  /** The signal and log handed to the task's calls. */
  readonly context: TaskCallContext;
  readonly ledger: CandidateLedger;
  readonly initial: ParameterValues;
  readonly initialScore: DatasetScore;
}

export interface AttemptScope {
  readonly job: JobSpec;
  readonly services: JobServices;
  readonly recorder: JobRecorder;
  readonly abort: AttemptAbort;
  readonly calls: JobCalls;
  /** The LLM of the task's agent and guide (null: the run gives tasks none). */
  readonly taskCalls: TaskCalls | null;
  /** `performance.now()` when the attempt began. */
  readonly started: number;
  readonly progress: Progress;
  built: Built | null;
}

/** Examples a job scores at once: its trainer's `num_threads` (the original's evaluation threads), else 1. */
export function jobConcurrency(job: JobSpec): number {
  const threads = toPlain(job.resolved_kwargs.trainer_kwargs).num_threads;
  return typeof threads === "number" && Number.isInteger(threads) && threads > 0 ? threads : 1;
}

/** How an evaluation of the attempt scores its examples: the job's concurrency, and its next batch of task calls. */
export function evaluationOptions(scope: AttemptScope): ScoreOptions {
  const concurrency = jobConcurrency(scope.job);
  return scope.taskCalls === null ? { concurrency } : { concurrency, llmFor: scope.taskCalls.nextBatch(scope.abort.signal) };
}

/** What building handed on; a phase after it cannot run without. */
export function builtOf(scope: AttemptScope): Built {
  if (scope.built === null) throw new Error("a phase after building ran before building finished");
  return scope.built;
}

export function evaluationFact(phase: "initial" | "final" | "test", attempt: number, result: DatasetScore, candidate: string): JobFact {
  return {
    type: "EvaluationCompleted",
    data: {
      attempt,
      phase,
      split: result.split,
      score: result.score,
      feedback: result.feedback,
      example_scores: [...result.exampleScores],
      candidate,
      ...(result.scores !== undefined ? { scores: { ...result.scores } } : {}),
    },
  };
}

/** The per-metric means beside the job's initial, final and best scores (best: the evaluation `score_val` is, as `evaluating` picks the best values); null when no evaluation names a metric. */
function outcomeMetrics(initial: DatasetScore | null, final: DatasetScore | null): JobOutcome["metrics"] | null {
  const a = initial?.scores;
  const b = final?.scores;
  if (a === undefined && b === undefined) return null;
  const finalIsBest = final !== null && final.score !== null && (initial === null || initial.score === null || final.score >= initial.score);
  const best = finalIsBest ? b : initial?.score !== null ? a : undefined;
  return { ...(a !== undefined ? { initial: { ...a } } : {}), ...(b !== undefined ? { final: { ...b } } : {}), ...(best !== undefined ? { best: { ...best } } : {}) };
}

/** What the attempt produced, as `JobFinished` records it. */
export function outcomeOf(scope: AttemptScope): JobOutcome {
  const { job, progress } = scope;
  const initialScore = progress.initialScore?.score ?? null;
  const finalScore = progress.final?.score ?? null;
  const bundle = progress.bundle;
  const metrics = outcomeMetrics(progress.initialScore, progress.final);
  return {
    feedback: progress.feedback,
    score_val_initial: initialScore,
    score_val_final: finalScore,
    score_val: initialScore !== null && finalScore !== null ? Math.max(initialScore, finalScore) : (finalScore ?? initialScore),
    score_test: progress.test?.score ?? null,
    time_seconds: (performance.now() - scope.started) / 1000,
    resolved: progress.resolved ?? resolvedMetadata(job, bundle),
    agent: bundle?.agent.name ?? null,
    parameters: bundle?.parameters.map((p) => ({ name: p.name, kind: p.kind, trainable: p.trainable })) ?? [],
    initial_values: progress.initial,
    final_values: progress.final === null ? null : progress.latest,
    best_values: progress.best,
    ...(progress.noSearch ? { no_search: true } : {}),
    ...(metrics !== null ? { metrics } : {}),
  };
}
