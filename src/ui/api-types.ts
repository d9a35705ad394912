/**
 * What the dashboard's HTTP API returns: the contract between the server (src/ui) and the page
 * (src/ui/app). Type-only: the page's bundle erases these imports.
 */
import type { CallOutcome } from "../events/projections/llm-call-records.js";
import type { Comparison } from "../events/projections/run-comparison.js";
import type { TokenCounts } from "../events/projections/token-audit.js";
import type { RunListing } from "../events/run-listing.js";

/**
 * A run as the runs list shows it; `rel_dir` (its folder relative to the runs dir) names it in
 * every URL. (No field is called `key` or `*_token`: those names are redacted as secrets.)
 */
export interface RunSummary extends RunListing {
  readonly rel_dir: string;
  readonly progress: Progress;
  /** A process on this machine holds the run's writer lock: the page may cancel it. */
  readonly cancellable: boolean;
}

export interface RunsPayload {
  readonly runs_dir: string;
  readonly runs: readonly RunSummary[];
  readonly warnings: readonly string[];
}

/** Done (any end but cancelled) / failed / running of total, for the latest invocation's matrix. */
export interface Progress {
  readonly total: number;
  readonly done: number;
  readonly failed: number;
  readonly running: number;
  /** 0..100, whole numbers; 100 only when every job of the matrix is done. */
  readonly percent: number;
  /** Seconds left at the rate jobs finished in this invocation; null before the first one, or when the run is not running. */
  readonly eta_seconds: number | null;
  readonly elapsed_seconds: number;
}

/** One job's live state, as pushed while a run executes. */
export interface JobState {
  readonly job_id: string;
  readonly task_id: string;
  readonly trainer_id: string;
  /** The params variant's label (`default` for a trainer without params). */
  readonly variant: string;
  readonly seed: number;
  /** The job machine's state in the latest attempt. */
  readonly state: string;
  readonly attempt: number;
  /** The latest finished attempt's status, null before any. */
  readonly status: string | null;
  readonly score_val: number | null;
  readonly last_seq: number;
}

export interface IterationPoint {
  readonly step: number;
  readonly score: number | null;
  readonly best_score: number | null;
}

export interface LeaderboardRow {
  readonly rank: number;
  readonly task_id: string;
  readonly suite: string;
  readonly job_id: string;
  readonly trainer_id: string;
  /** The params variant's label (`default` for a trainer without params). */
  readonly variant: string;
  readonly resolved_optimizer: string | null;
  readonly llm_model: string | null;
  /** The group's best seed: its job, score and time. */
  readonly score_val: number | null;
  readonly score_test: number | null;
  readonly time_seconds: number;
  /** What ranks the group: its ok seeds and their mean and spread. */
  readonly n: number;
  readonly score_mean: number | null;
  readonly score_std: number | null;
}

export interface RunPayload {
  readonly run: RunSummary;
  readonly last_seq: number;
  /** results.csv's columns in order, then `state` (the job machine's state, live). */
  readonly columns: readonly string[];
  /** One row per matrix job: its results.csv row when an attempt finished, else its identity and state. */
  readonly rows: readonly Record<string, unknown>[];
  readonly jobs: readonly JobState[];
  readonly leaderboard: readonly LeaderboardRow[];
  /** Score per step of each job's latest attempt (for the iteration chart). */
  readonly iterations: Readonly<Record<string, readonly IterationPoint[]>>;
  /** Files of the run directory the page links to (results.csv, summary.json, ...), those present. */
  readonly files: readonly string[];
  /** The command that resumes this run, as the page's Resume launches it (null while it runs). */
  readonly resume_command: string | null;
  /** The command that re-runs its failed jobs, as the page's Retry failed launches it (null while it runs). */
  readonly retry_command: string | null;
  /** A run whose guides name two metrics or more: its jobs and candidates on the first two (sorted), with their Pareto front; absent otherwise. */
  readonly metric_scatter?: MetricScatter;
}

/** One point of the metric scatter: a job (its best evaluation's metrics) or a candidate its trainer evaluated (its latest evaluation's). */
export interface MetricPoint {
  readonly kind: "job" | "candidate";
  readonly job_id: string;
  /** The candidate's content ref (jobs: their best candidate is not named). */
  readonly candidate: string | null;
  readonly x: number;
  readonly y: number;
}

export interface MetricScatter {
  /** The metric on each axis. */
  readonly x: string;
  readonly y: string;
  /** Every metric the run's guides name (sorted); the scatter shows the first two. */
  readonly metrics: readonly string[];
  /** Whether lower is better on each axis (a metric some job's objective_config minimizes). */
  readonly minimize: { readonly x: boolean; readonly y: boolean };
  readonly points: readonly MetricPoint[];
  /** The points no other point dominates on the two axes, in order along x. */
  readonly front: readonly MetricPoint[];
}

/** One group of `trace-bench tokens --by ...` (its key as `name`). */
export interface AuditGroup {
  readonly name: string;
  readonly calls: Readonly<Record<CallOutcome, number>>;
  readonly billed: Readonly<TokenCounts>;
  readonly replayed: Readonly<TokenCounts>;
  readonly cost_usd: number | null;
  readonly estimated: boolean;
}

export interface TokensPayload {
  readonly audits: Readonly<Record<"trainer" | "model" | "role" | "task", { readonly groups: readonly AuditGroup[]; readonly totals: AuditGroup }>>;
}

export interface MachineNode {
  readonly id: string;
  readonly final: boolean;
  readonly tags: readonly string[];
}

export interface MachineEdge {
  readonly from: string;
  readonly to: string;
  readonly event: string;
  readonly guard: string | null;
}

export interface MachinePayload {
  readonly id: string;
  readonly initial: string;
  readonly nodes: readonly MachineNode[];
  readonly edges: readonly MachineEdge[];
}

export interface TimelineEntry {
  readonly seq: number;
  readonly ts: string;
  readonly type: string;
  readonly attempt: number | null;
  /** The event as the job's stdout.log reads it (without the time stamp); null for events it leaves out. */
  readonly text: string | null;
}

export interface TransitionStep {
  readonly attempt: number;
  readonly from: string;
  readonly to: string;
  readonly event: string;
  readonly reason: string | null;
  readonly ts: string;
}

export interface IterationEntry extends IterationPoint {
  readonly attempt: number;
  readonly values: Readonly<Record<string, unknown>>;
  readonly llm_calls: number;
  readonly evaluations: number;
  readonly notes: readonly string[];
}

export interface EvaluationEntry {
  readonly attempt: number;
  readonly phase: string;
  readonly split: string;
  readonly score: number | null;
  readonly feedback: string;
  readonly example_scores: readonly number[];
}

export interface CallEntry {
  readonly seq: number;
  readonly attempt: number;
  readonly call: number | null;
  readonly role: string;
  readonly model: string;
  readonly outcome: CallOutcome;
  readonly error: string | null;
  readonly prompt_tokens: number | null;
  readonly completion_tokens: number | null;
  readonly total_tokens: number | null;
  readonly latency_ms: number | null;
  readonly cost_usd: number | null;
  readonly messages: readonly { readonly role: string; readonly text: string | null }[] | null;
  readonly reply: string | null;
}

/** One candidate of a job (see src/events/projections/candidate-table.ts). */
export interface CandidateRow {
  /** Its id: the content ref of its trainable values. */
  readonly candidate: string;
  /** 0 for the initial values, the iteration that introduced it, or null when only the final evaluation saw it. */
  readonly introduced: number | null;
  readonly parents: readonly string[];
  /** Training evaluations it had. */
  readonly evaluations: number;
  readonly mean_score: number | null;
  readonly best_score: number | null;
  readonly marks: readonly string[];
  readonly changes: readonly { readonly parameter: string; readonly added: number; readonly removed: number }[];
}

export interface CandidatesEntry {
  readonly attempt: number;
  readonly rows: readonly CandidateRow[];
  readonly lineage: readonly string[];
}

export interface JobPayload {
  readonly rel_dir: string;
  readonly job: JobState & { readonly spec: unknown; readonly reason: string | null };
  /** Every transition of every attempt, in order; the latest attempt's is the path the diagram draws. */
  readonly transitions: readonly TransitionStep[];
  readonly timeline: readonly TimelineEntry[];
  readonly iterations: readonly IterationEntry[];
  readonly evaluations: readonly EvaluationEntry[];
  readonly calls: readonly CallEntry[];
  /** The candidates of the latest attempt, in the order they were first evaluated, and the lineage to the best. */
  readonly candidates: CandidatesEntry;
  /** The job's files, relative to the run directory. */
  readonly artifacts: readonly string[];
  readonly finished: unknown;
  /** The job is running in a live `run`: the page may cancel it alone. */
  readonly cancellable: boolean;
}

export interface ConfigListPayload {
  readonly cwd: string;
  readonly runs_dir: string;
  /** YAML files under the working directory, relative to it. */
  readonly configs: readonly string[];
}

export interface ValidationPayload {
  readonly ok: boolean;
  readonly exit_code: number;
  /** `validate --strict`'s verdict lines ([OK], [FAIL], ...) or its one-line errors. */
  readonly messages: readonly string[];
  readonly jobs: number;
}

export interface LaunchPayload {
  readonly launch_id: string;
  readonly pid: number;
  /** The launched process's console output, relative to the runs dir. */
  readonly log: string;
}

export interface LaunchStatusPayload {
  readonly launch_id: string;
  readonly pid: number;
  /** The run it writes, once its log names this process as the writer. */
  readonly rel_dir: string | null;
  readonly exit_code: number | null;
  readonly running: boolean;
  /** The end of its console output. */
  readonly output: string;
}

/** Two arms of a run compared on the jobs both ran (what `trace-bench compare RUN --by AXIS A B --json` prints). */
export interface ComparePayload extends Comparison {
  readonly by: string;
  readonly a: string;
  readonly b: string;
  readonly differing: readonly string[];
  readonly verdict: string;
}
