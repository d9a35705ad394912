/**
 * Every fact trace-bench records, as effect/Schema. Events are decoded on read; an unknown type
 * is an error (a newer trace-bench wrote this log), never silently dropped.
 */
import * as Schema from "effect/Schema";
import { compileGuard } from "./payload-guard.js";
import { isSafeId } from "./safe-id.js";

const Json = Schema.Unknown;
const JsonRecord = Schema.Record({ key: Schema.String, value: Json });
const Score = Schema.NullOr(Schema.Number);
/** Named scores of a multi-objective guide, by metric. */
const MetricScores = Schema.Record({ key: Schema.String, value: Schema.Number });

/** One matrix cell, as recorded at run start. */
/** A job id as it appears in paths: checked when read, so a doctored log cannot escape the run dir. */
const JobId = Schema.String.pipe(Schema.filter((id) => isSafeId(id) || `job id ${JSON.stringify(id)} is not a plain name`));

export const JobSpecRecord = Schema.Struct({
  job_id: JobId,
  task_id: Schema.String,
  suite: Schema.String,
  trainer_id: Schema.String,
  seed: Schema.Number,
  /** The job's model when the config lists several (models as a matrix axis). */
  llm_model: Schema.optional(Schema.String),
  raw_params: JsonRecord,
  resolved_kwargs: Schema.Struct({
    trainer_kwargs: JsonRecord,
    optimizer: Schema.NullOr(Schema.String),
    optimizer_kwargs: Json,
    guide: Schema.NullOr(Schema.String),
    guide_kwargs: JsonRecord,
    logger: Schema.NullOr(Schema.String),
    logger_kwargs: JsonRecord,
    eval_kwargs: JsonRecord,
  }),
});
export type JobSpecRecord = Schema.Schema.Type<typeof JobSpecRecord>;

export const LlmInfo = Schema.Struct({
  llm_provider: Schema.String,
  /** The optimizer's model; "" when the config lists several (each job's is in its matrix entry). */
  llm_model: Schema.String,
  llm_base_url: Schema.String,
  /** The agent's model (llm.agent); absent in logs written before roles; "" when it is each job's model of a model list. */
  llm_agent_model: Schema.optional(Schema.String),
});
export type LlmInfo = Schema.Schema.Type<typeof LlmInfo>;

/** The small request `run` sends in mode real before any job starts (its tokens are billed too). */
export const LlmPreflight = Schema.Struct({
  model: Schema.String,
  prompt_tokens: Schema.Number,
  completion_tokens: Schema.Number,
  total_tokens: Schema.Number,
  cost_usd: Schema.NullOr(Schema.Number),
  latency_ms: Schema.Number,
});

export type LlmPreflight = Schema.Schema.Type<typeof LlmPreflight>;

export const RunStarted = Schema.Struct({
  /** 1 for a new run, then +1 for each resume. */
  invocation: Schema.Number,
  config_hash: Schema.String,
  config_snapshot: JsonRecord,
  /** The snapshot as YAML, rendered at start (keeps `1.0` floats that JSON would turn into `1`). */
  config_snapshot_yaml: Schema.String,
  matrix: Schema.Array(JobSpecRecord),
  mode: Schema.String,
  max_workers: Schema.Number,
  job_timeout_seconds: Schema.Number,
  resume_mode: Schema.String,
  fail_fast: Schema.Boolean,
  tags: Schema.Array(Schema.String),
  llm: LlmInfo,
  env: JsonRecord,
  git: JsonRecord,
  /** Mode real: the preflight request this invocation made before starting jobs (one per model when the config lists several). */
  llm_preflight: Schema.optional(Schema.Union(LlmPreflight, Schema.Array(LlmPreflight))),
  /** The config file's base name; absent in older logs and when the run's own snapshot was given (a resume). */
  config_name: Schema.optional(Schema.String),
});

export const JobQueued = Schema.Struct({ attempt: Schema.Number, invocation: Schema.Number });

export const JobTransitioned = Schema.Struct({
  attempt: Schema.Number,
  from: Schema.String,
  to: Schema.String,
  /** The machine event that caused it (START, BUILT, ...). */
  event: Schema.String,
  reason: Schema.NullOr(Schema.String),
  /** When entering `building` under a job timeout: the deadline (ISO time) the engine enforces. */
  deadline: Schema.optional(Schema.NullOr(Schema.String)),
  /** What the one-line reason leaves out (a stack trace): shown in the job's stdout.log only. */
  detail: Schema.optional(Schema.String),
});

export const EvaluationPhase = Schema.Literal("initial", "final", "test");

export const EvaluationCompleted = Schema.Struct({
  attempt: Schema.Number,
  phase: EvaluationPhase,
  split: Schema.String,
  score: Score,
  feedback: Schema.String,
  example_scores: Schema.Array(Schema.Number),
  /** The candidate evaluated (see CandidateEvaluated); absent in logs written before candidates were recorded. */
  candidate: Schema.optional(Schema.String),
  /** Per-metric means over the split of a multi-objective guide; absent when it names none (and in older logs). */
  scores: Schema.optional(MetricScores),
});

export const IterationCompleted = Schema.Struct({
  attempt: Schema.Number,
  step: Schema.Number,
  score: Score,
  best_score: Score,
  /** Parameter values of the candidate this step produced. */
  values: JsonRecord,
  llm_calls: Schema.Number,
  evaluations: Schema.Number,
  /** Per-metric scores of multi-objective guides. */
  scores: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Number })),
  /** What went wrong without stopping the trainer (an unreadable optimizer reply, a rejected update). */
  notes: Schema.optional(Schema.Array(Schema.String)),
});

/** A stored text (a prompt message, a reply), by the hash of its content: see content-store.ts. */
const ContentRef = Schema.String;

/**
 * One evaluation of a candidate while the trainer searched (a rollout of its values on a batch of
 * examples). `candidate` is the content ref of the candidate's trainable values as canonical JSON,
 * whose text is in the content table: the candidate's id and its values at once. Feedback texts
 * are stored there too, once each. Initial, final and test evaluations are EvaluationCompleted.
 */
export const CandidateEvaluated = Schema.Struct({
  attempt: Schema.Number,
  candidate: ContentRef,
  /** The candidates the optimizer was shown when it proposed this one; [] for the initial values and any the trainer made itself. */
  parents: Schema.Array(ContentRef),
  /** 1-based: the training iteration under way (the IterationCompleted that follows it). */
  iteration: Schema.Number,
  /** Where its examples come from: `train`, `validate`, or `other`. */
  split: Schema.String,
  /** Mean over the examples; null when one has no score. */
  score: Score,
  example_scores: Schema.Array(Score),
  /** Per-metric means of a multi-objective guide. */
  scores: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Number })),
  /** Each example's feedback, by content ref. */
  feedback: Schema.Array(ContentRef),
});
const LlmRoleName = Schema.String;

/**
 * Committed before the request leaves the process, so a crash leaves a call with no outcome
 * (reported `lost` by `trace-bench tokens`) instead of no trace. `call` is the request's 1-based
 * position in the attempt; `request_hash` identifies what was asked (model, messages, limits).
 */
export const LlmCallStarted = Schema.Struct({
  attempt: Schema.Number,
  call: Schema.Number,
  role: LlmRoleName,
  model: Schema.String,
  request_hash: Schema.String,
  /** The request's messages, each stored once in the content table. */
  messages: Schema.Array(Schema.Struct({ role: Schema.String, ref: ContentRef })),
  /** The request's completion limit (null: none). Absent in logs written before budgets were hard. */
  max_tokens: Schema.optional(Schema.NullOr(Schema.Number)),
  /** Its prompt's tokens at most, bounded before it was sent (src/llm/request-worst-case.ts). */
  prompt_tokens_at_most: Schema.optional(Schema.Number),
  /**
   * A task call's place in the job, "batch/example/call" (src/llm/task-calls.ts): the journal
   * answers it by slot, whatever order concurrent examples sent their calls in. Absent for the
   * optimizer's calls and in logs written before task calls.
   */
  slot: Schema.optional(Schema.String),
});

export const LlmCallCompleted = Schema.Struct({
  attempt: Schema.Number,
  role: LlmRoleName,
  model: Schema.String,
  prompt_tokens: Schema.Number,
  completion_tokens: Schema.Number,
  total_tokens: Schema.Number,
  latency_ms: Schema.Number,
  /** True when token counts are estimated (stub LLM), not reported by a provider. */
  estimated: Schema.Boolean,
  /** Legacy logs (before calls were journaled) lack the fields below. */
  call: Schema.optional(Schema.Number),
  cached_tokens: Schema.optional(Schema.Number),
  retries: Schema.optional(Schema.Number),
  /** USD from the price table; null when the model has no price (never a guess). */
  cost_usd: Schema.optional(Schema.NullOr(Schema.Number)),
  reply_ref: Schema.optional(ContentRef),
  /** Answered from the journal of an interrupted attempt: nothing was sent, nothing billed. */
  replayed: Schema.optional(Schema.Boolean),
  /** The reply text of legacy logs. */
  response: Schema.optional(Schema.String),
});

export const LlmCallFailed = Schema.Struct({
  attempt: Schema.Number,
  call: Schema.Number,
  role: LlmRoleName,
  model: Schema.String,
  /** An LlmErrorKind: auth, permission, model_not_found, bad_request, rate_limited, server, network, timeout, malformed, budget. */
  error_class: Schema.String,
  http_status: Schema.NullOr(Schema.Number),
  retries: Schema.Number,
  /** One line, without secrets. */
  message: Schema.String,
  latency_ms: Schema.Number,
});

/** The call was cut off (job timeout, Ctrl-C, budget): the provider may have billed tokens nobody knows. */
export const LlmCallAborted = Schema.Struct({
  attempt: Schema.Number,
  call: Schema.Number,
  role: LlmRoleName,
  model: Schema.String,
  reason: Schema.String,
  latency_ms: Schema.Number,
});

/** A re-run asked something its journal did not hold at that point: from here on, calls go live. */
export const JournalDiverged = Schema.Struct({
  attempt: Schema.Number,
  call: Schema.Number,
  request_hash: Schema.String,
  /** What the journal held at that position (null: the journal had ended). */
  journaled_hash: Schema.NullOr(Schema.String),
  /** Calls answered from the journal before it diverged. */
  replayed: Schema.Number,
});

/** What the task's code printed while the job ran (a candidate's stdout and stderr), for stdout.log. */
export const TaskOutput = Schema.Struct({ attempt: Schema.Number, text: Schema.String });

/** An optimizer reply that could not be applied (unreadable, or no value usable). */
export const ReplyUnusable = Schema.Struct({ attempt: Schema.Number, reason: Schema.String });

export const FINISHED_STATUSES = ["ok", "failed", "skipped", "timeout", "cancelled", "budget_exhausted", "no_valid_candidate"] as const;
export type FinishedStatus = (typeof FINISHED_STATUSES)[number];

export const ParameterInfo = Schema.Struct({ name: Schema.String, kind: Schema.String, trainable: Schema.Boolean });

export const JobFinished = Schema.Struct({
  attempt: Schema.Number,
  status: Schema.Literal(...FINISHED_STATUSES),
  feedback: Schema.String,
  score_val_initial: Score,
  score_val_final: Score,
  score_val: Score,
  score_test: Score,
  time_seconds: Schema.Number,
  resolved: Schema.Struct({
    optimizer: Schema.NullOr(Schema.String),
    guide: Schema.NullOr(Schema.String),
    logger: Schema.NullOr(Schema.String),
    trainer_kwargs: JsonRecord,
    optimizer_kwargs: Json,
    guide_kwargs: JsonRecord,
    logger_kwargs: JsonRecord,
  }),
  /** Set (true) when the optimizer was asked and never proposed a change: the job did no search (the stub with nothing to offer). */
  no_search: Schema.optional(Schema.Boolean),
  /** The agent and its parameters, to render state snapshots; null when the bundle never loaded. */
  agent: Schema.NullOr(Schema.String),
  parameters: Schema.Array(ParameterInfo),
  initial_values: Schema.NullOr(JsonRecord),
  final_values: Schema.NullOr(JsonRecord),
  best_values: Schema.NullOr(JsonRecord),
  /**
   * Per-metric means of a multi-objective guide beside the scores above: the initial and final
   * evaluations', and `best`, those of the evaluation `score_val` is (the final one when it is at
   * least the initial). Absent when the guide names no metric, and in older logs.
   */
  metrics: Schema.optional(
    Schema.Struct({ initial: Schema.optional(MetricScores), final: Schema.optional(MetricScores), best: Schema.optional(MetricScores) }),
  ),
});

/** Why matrix jobs were not run in this invocation (fail-fast stop, resume mode, interruption). */
const NotRun = Schema.Record({ key: Schema.String, value: Schema.String });

export const RunInterrupted = Schema.Struct({
  invocation: Schema.Number,
  signal: Schema.String,
  running_jobs: Schema.Array(Schema.String),
  not_run: NotRun,
});

export const RunFinished = Schema.Struct({ invocation: Schema.Number, counts: Schema.Record({ key: Schema.String, value: Schema.Number }), not_run: NotRun });

export const EVENT_DATA = {
  RunStarted,
  JobQueued,
  JobTransitioned,
  EvaluationCompleted,
  IterationCompleted,
  CandidateEvaluated,
  LlmCallStarted,
  LlmCallCompleted,
  LlmCallFailed,
  LlmCallAborted,
  JournalDiverged,
  ReplyUnusable,
  TaskOutput,
  JobFinished,
  RunInterrupted,
  RunFinished,
} as const;

export type EventType = keyof typeof EVENT_DATA;
export type EventData<T extends EventType> = Schema.Schema.Type<(typeof EVENT_DATA)[T]>;

/** What a job's phases record while they run, between its lifecycle events. */
export const JOB_FACT_TYPES = [
  "EvaluationCompleted",
  "IterationCompleted",
  "CandidateEvaluated",
  "LlmCallStarted",
  "LlmCallCompleted",
  "LlmCallFailed",
  "LlmCallAborted",
  "JournalDiverged",
  "ReplyUnusable",
  "TaskOutput",
] as const satisfies readonly EventType[];

/** Events about one job carry its id; run-level events do not. */
export const JOB_EVENT_TYPES: ReadonlySet<EventType> = new Set<EventType>(["JobQueued", "JobTransitioned", ...JOB_FACT_TYPES, "JobFinished"]);

/** What any event is made of, stored or not: its type and payload. */
export type EventBody = { [T in EventType]: { readonly type: T; readonly data: EventData<T> } }[EventType];

export type NewEvent = {
  [T in EventType]: { readonly type: T; readonly job_id?: string; readonly data: EventData<T> };
}[EventType];

/** The envelope's schema version: 1 = logs written before streams (read as-is), 2 = streams. */
export const EVENT_SCHEMA_VERSION = 2;

/** Events belong to streams: `run` for run-level events, `job-<job_id>` for a job's events. */
export const RUN_STREAM = "run";
export const jobStream = (jobId: string) => `job-${jobId}`;
export const streamOf = (jobId: string | null) => (jobId === null ? RUN_STREAM : jobStream(jobId));

export type StoredEvent = {
  [T in EventType]: {
    /** Global position in the run's log, assigned by the store. */
    readonly seq: number;
    /** Envelope schema version the event was written with. */
    readonly v: number;
    readonly stream: string;
    /** 1-based position within its stream. */
    readonly position: number;
    readonly type: T;
    readonly run_id: string;
    readonly job_id: string | null;
    readonly ts: string;
    readonly data: EventData<T>;
  };
}[EventType];

/**
 * Per type: a check that the payload already is the type (no schema here transforms a value, so a
 * valid payload decodes to itself; a run's log is read whole on every open and replay, and the
 * compiled guard answers as `Schema.is` does at a fraction of its cost), and the decoder that says
 * what is wrong when not.
 */
const decoders = Object.fromEntries(
  Object.entries(EVENT_DATA).map(([type, schema]) => [
    type,
    {
      valid: compileGuard(schema as Schema.Schema<unknown>),
      decode: Schema.decodeUnknownSync(schema as Schema.Schema<unknown>, { onExcessProperty: "preserve" }),
    },
  ]),
) as unknown as Record<EventType, { valid: (u: unknown) => boolean; decode: (u: unknown) => unknown }>;

export class EventDecodeError extends Error {
  override readonly name = "EventDecodeError";
}

/** Validates a stored row; throws `EventDecodeError` for unknown types or bad payloads. */
export function decodeEvent(row: { seq: number; v: number; stream: string; position: number; type: string; run_id: string; job_id: string | null; ts: string; data: unknown }): StoredEvent {
  if (row.job_id !== null && !isSafeId(row.job_id)) throw new EventDecodeError(`event ${row.seq}: job id ${JSON.stringify(row.job_id)} is not a plain name`);
  const decoder = decoders[row.type as EventType];
  if (decoder === undefined) throw new EventDecodeError(`event ${row.seq}: unknown event type '${row.type}' (written by a newer trace-bench?)`);
  if (decoder.valid(row.data)) return row as StoredEvent;
  try {
    return { ...row, data: decoder.decode(row.data) } as StoredEvent;
  } catch (error) {
    throw new EventDecodeError(`event ${row.seq} (${row.type}): ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
  }
}
