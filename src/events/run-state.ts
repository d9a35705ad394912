/**
 * The fold every projection starts from: the run's events reduced to one view per job (its
 * latest attempt) plus run-level facts. Applying an event twice is the same as applying it once
 * (events at or below `lastSeq` are ignored), so live runs and `replay` reach the same state.
 */
import type { EventData, EventType, FinishedStatus, JobSpecRecord, StoredEvent } from "./event-schema.js";
import { jobLogLine } from "./projections/job-log.js";
import { SharedValues } from "./shared-values.js";
import { SnapshotValues } from "./snapshot-values.js";

export type RunStartedData = EventData<"RunStarted">;
export type JobFinishedData = EventData<"JobFinished">;
export type EvaluationData = EventData<"EvaluationCompleted">;
export type IterationData = EventData<"IterationCompleted">;

export interface TokenTotals {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

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
   * each event is applied, so the state keeps no event once it is folded (memory stays flat in
   * the number of events; a re-run reads its job's history from the log).
   */
  log: string;
  /** Seq of the job's latest event (0 before any): what its files were rendered from. */
  lastSeq: number;
  /** Its files were written and what only they need was dropped (`RunState.releaseDetail`). */
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
 * (the event's fields, then the attempt's totals). Built with object spreads, every job's object
 * got a hidden class of its own in V8: about a kilobyte per job, kept for the whole run.
 */
function finishedAttempt(base: JobFinishedData & Partial<FinishedAttempt>, set: Partial<FinishedAttempt>): FinishedAttempt {
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

export const zeroTokens = (): TokenTotals => ({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });

/** A sum of call costs; `unknown` when some call had no price (the sum is then not the cost). */
export interface CostTotal {
  usd: number;
  unknown: boolean;
}

/** LLM use of one model or role: answered, failed and aborted calls; tokens and cost of the answered. */
export interface LlmUse {
  calls: number;
  failed: number;
  aborted: number;
  tokens: TokenTotals;
  cost: CostTotal;
}

export const zeroCost = (): CostTotal => ({ usd: 0, unknown: false });

/** A cost total as reported: null when any part is unknown, never a partial sum. */
export const reportedCost = (cost: CostTotal): number | null => (cost.unknown ? null : Math.round(cost.usd * 1e8) / 1e8);

function addCost(into: CostTotal, cost: number | null | undefined): void {
  if (typeof cost === "number") into.usd += cost;
  else into.unknown = true;
}

/**
 * What a lean run state folds (`new RunState(false)`): attempts, outcomes, LLM use and the run's
 * matrix. A writer reopening a big run reads only these rows (a trivial job has 2 of its 9).
 */
export const LEAN_FOLD_TYPES: readonly EventType[] = [
  "RunStarted",
  "RunInterrupted",
  "RunFinished",
  "JobQueued",
  "JobFinished",
  "LlmCallCompleted",
  "LlmCallFailed",
  "LlmCallAborted",
  "ReplyUnusable",
];
const LEAN_FOLD: ReadonlySet<string> = new Set(LEAN_FOLD_TYPES);

/** What a finished attempt keeps in a lean state. */
type KeptFinished = Omit<FinishedAttempt, LeanEmptied>;

/** Every field a lean state keeps, in the order a snapshot writes their values (a record, so that none can be missed). */
const KEPT_FINISHED_FIELDS = Object.keys({
  attempt: true,
  status: true,
  feedback: true,
  score_val_initial: true,
  score_val_final: true,
  score_val: true,
  score_test: true,
  time_seconds: true,
  resolved: true,
  agent: true,
  no_search: true,
  ts: true,
  tokens: true,
  llm_calls: true,
  llm_errors: true,
  replayed_calls: true,
  unusable_replies: true,
  cost_usd: true,
  estimated_tokens: true,
  iteration_count: true,
} satisfies Record<keyof KeptFinished, true>) as (keyof KeptFinished)[];

/** Fields whose values repeat across jobs: a snapshot writes their index into its values. */
const INDEXED_FINISHED_FIELDS: ReadonlySet<keyof KeptFinished> = new Set(["feedback", "resolved", "agent", "tokens"]);

/** A finished attempt in a snapshot: the values of `KEPT_FINISHED_FIELDS` in that order, the indexed ones as indexes. */
type SavedFinished = unknown[];

/** A job spec in a snapshot: its kwargs as indexes into the snapshot's values. */
type SavedSpec = Omit<JobSpecRecord, "raw_params" | "resolved_kwargs"> & { readonly raw_params: number; readonly resolved_kwargs: number };

/**
 * A job's view in a snapshot: its id, and only the fields that differ from a view no event touched
 * (its spec when not the matrix's). A 10,000-job run's snapshot was 14 MB, mostly zeros and empty
 * lists, and reading and parsing it was most of the time to decide what to resume.
 */
type SavedView = Partial<Omit<JobView, "spec" | "finished">> & {
  readonly job_id: string;
  readonly spec?: SavedSpec;
  finished?: SavedFinished;
};

/** What a lean state keeps empty in a finished attempt: only a job's own files show it. */
type LeanEmptied = "parameters" | "initial_values" | "final_values" | "best_values" | "iterations" | "iteration_marks";

/** A view's fields a snapshot holds only when they differ from a new view's. */
type DefaultedViewField = Exclude<keyof JobView, "job_id" | "spec" | "finished">;

/**
 * The fields of a view that a snapshot leaves out when they hold what a new view holds: every
 * field but its id, spec and outcome (a record, so that a field added to `JobView` and not here
 * does not compile, instead of being lost on the way through a snapshot).
 */
const DEFAULTED_VIEW_FIELDS = Object.keys({
  attempt: true,
  state: true,
  evaluations: true,
  iterations: true,
  iterationMarks: true,
  llmCalls: true,
  llmErrors: true,
  llmAborted: true,
  replayedCalls: true,
  unusableReplies: true,
  tokens: true,
  cost: true,
  estimatedTokens: true,
  allAttemptTokens: true,
  allAttemptCost: true,
  log: true,
  lastSeq: true,
  released: true,
} satisfies Record<DefaultedViewField, true>) as DefaultedViewField[];

/** The value each of those fields has before any event, as JSON (what a snapshot compares with). */
let defaultFieldJson: ReadonlyMap<string, string> | undefined;
function defaultJsonOf(key: DefaultedViewField): string | undefined {
  if (defaultFieldJson === undefined) {
    const fresh = newJobView({ job_id: "" } as JobSpecRecord);
    defaultFieldJson = new Map(DEFAULTED_VIEW_FIELDS.map((field) => [field, JSON.stringify(fresh[field])]));
  }
  return defaultFieldJson.get(key);
}

/** What a lean state's snapshot holds: its fields, with maps as entry lists. */
interface LeanSnapshot
  extends Pick<RunState, "lastSeq" | "runId" | "configName" | "startedTs" | "lastTs" | "invocations" | "notRun" | "interrupted" | "finished" | "preflight" | "order"> {
  readonly started: (Omit<RunStartedData, "matrix"> & { readonly matrix: readonly SavedSpec[] }) | null;
  readonly jobs: SavedView[];
  /** What the indexes in `started.matrix` and `jobs` refer to. */
  readonly values: unknown[];
  readonly llmByModel: [string, LlmUse][];
  readonly llmByRole: [string, LlmUse][];
}

export class RunState {
  lastSeq = 0;
  runId = "";
  /** The latest RunStarted (a resume appends a new one). */
  started: RunStartedData | null = null;
  /** The latest config name an invocation recorded (a resume from the run's snapshot records none). */
  configName: string | null = null;
  startedTs = "";
  lastTs = "";
  invocations = 0;
  /** Why jobs of the latest invocation never ran, by job id. */
  notRun: Record<string, string> = {};
  interrupted = false;
  finished = false;
  readonly jobs = new Map<string, JobView>();
  /** Billed LLM use over every attempt (replayed replies excluded), by model and by role. */
  readonly llmByModel = new Map<string, LlmUse>();
  readonly llmByRole = new Map<string, LlmUse>();
  /** Preflight requests of every invocation (mode real), billed like any call. */
  readonly preflight: LlmUse = { calls: 0, failed: 0, aborted: 0, tokens: zeroTokens(), cost: zeroCost() };
  /** Job ids in report order: the latest matrix, then jobs only earlier invocations knew. */
  order: string[] = [];
  /** What every job's spec and outcome repeat (kwargs, names), held once (memory flat in the matrix). */
  private readonly shared = new SharedValues();

  /**
   * @param detail fold every event, rendering each job's stdout.log as its events are applied: the
   *   projections need it. Without it (the writer's own state, which serves plans, budgets, the
   *   console and the closing report) only `LEAN_FOLD_TYPES` are folded, and a job's machine state,
   *   evaluations, iterations and log stay empty.
   */
  constructor(private readonly detail = true) {}

  static fold(events: Iterable<StoredEvent>): RunState {
    const state = new RunState();
    for (const event of events) state.apply(event);
    return state;
  }

  apply(event: StoredEvent): void {
    if (event.seq <= this.lastSeq) return;
    this.lastSeq = event.seq;
    this.runId = event.run_id;
    this.lastTs = event.ts;
    if (!this.detail && !LEAN_FOLD.has(event.type)) return;
    if (event.job_id !== null) this.applyJobEvent(event.job_id, event);
    else this.applyRunEvent(event);
  }

  /**
   * A lean state as text, to be saved with the log position it reflects (`lastSeq`): a writer
   * reopening a big finished run restores it instead of folding the log again. Everything in it
   * came from the log as JSON, so JSON gives it back exactly.
   */
  leanSnapshot(): string {
    if (this.detail) throw new Error("only a lean run state is saved as a snapshot");
    const { lastSeq, runId, started, configName, startedTs, lastTs, invocations, notRun, interrupted, finished, preflight, order } = this;
    // Each job's spec is in the matrix, and the values jobs repeat are written once each.
    const values = new SnapshotValues();
    const savedSpec = (spec: JobSpecRecord): SavedSpec => ({ ...spec, raw_params: values.indexOf(spec.raw_params), resolved_kwargs: values.indexOf(spec.resolved_kwargs) });
    const inMatrix = new Set(started?.matrix ?? []);
    const jobs = [...this.jobs.values()].map((view) => {
      const saved: SavedView = { job_id: view.job_id, ...(inMatrix.has(view.spec) ? {} : { spec: savedSpec(view.spec) }) };
      for (const key of DEFAULTED_VIEW_FIELDS) {
        if (JSON.stringify(view[key]) !== defaultJsonOf(key)) (saved as Record<string, unknown>)[key] = view[key];
      }
      const finished = view.finished;
      if (finished !== null) saved.finished = KEPT_FINISHED_FIELDS.map((key) => (INDEXED_FINISHED_FIELDS.has(key) ? values.indexOf(finished[key]) : finished[key]));
      return saved;
    });
    return JSON.stringify({
      lastSeq,
      runId,
      started: started === null ? null : { ...started, matrix: started.matrix.map(savedSpec) },
      configName,
      startedTs,
      lastTs,
      invocations,
      notRun,
      interrupted,
      finished,
      preflight,
      order,
      jobs,
      values: values.values,
      llmByModel: [...this.llmByModel],
      llmByRole: [...this.llmByRole],
    } satisfies LeanSnapshot);
  }

  /** The lean state a `leanSnapshot` holds; throws when the text is not one. */
  static fromLeanSnapshot(text: string): RunState {
    const saved = JSON.parse(text) as LeanSnapshot;
    const state = new RunState(false);
    state.lastSeq = saved.lastSeq;
    state.runId = saved.runId;
    state.configName = saved.configName;
    state.startedTs = saved.startedTs;
    state.lastTs = saved.lastTs;
    state.invocations = saved.invocations;
    state.notRun = saved.notRun;
    state.interrupted = saved.interrupted;
    state.finished = saved.finished;
    state.order = saved.order;
    Object.assign(state.preflight, saved.preflight);
    for (const [model, use] of saved.llmByModel) state.llmByModel.set(model, use);
    for (const [role, use] of saved.llmByRole) state.llmByRole.set(role, use);
    // Views share their matrix entries with `started`, and every job its repeated values, as in a fold.
    const values = saved.values.map((value) => state.shared.value(value));
    const spec = (s: SavedSpec) => state.sharedSpec({ ...s, raw_params: values[s.raw_params] as JobSpecRecord["raw_params"], resolved_kwargs: values[s.resolved_kwargs] as JobSpecRecord["resolved_kwargs"] });
    const specs = new Map<string, JobSpecRecord>();
    if (saved.started !== null) {
      const matrix = saved.started.matrix.map(spec);
      for (const s of matrix) specs.set(s.job_id, s);
      state.started = { ...saved.started, matrix };
    }
    for (const saving of saved.jobs) {
      // A new view (its own zeroed totals, which later events add to), with what the snapshot kept.
      const view = newJobView(saving.spec === undefined ? specs.get(saving.job_id)! : spec(saving.spec));
      for (const key of DEFAULTED_VIEW_FIELDS) if (saving[key] !== undefined) (view as unknown as Record<string, unknown>)[key] = saving[key];
      if (view.released) {
        view.evaluations = NO_EVALUATIONS;
        view.iterations = NO_ITERATIONS;
        view.iterationMarks = NO_MARKS;
      }
      if (saving.finished !== undefined) {
        const kept: Record<string, unknown> = {};
        KEPT_FINISHED_FIELDS.forEach((key, i) => (kept[key] = INDEXED_FINISHED_FIELDS.has(key) ? values[saving.finished![i] as number] : saving.finished![i]));
        view.finished = finishedAttempt(kept as unknown as FinishedAttempt, {
          // Each attempt its own totals, as a fold gives it.
          tokens: { ...(kept.tokens as TokenTotals) },
          parameters: EMPTY_LIST,
          initial_values: null,
          final_values: null,
          best_values: null,
          iterations: NO_ITERATIONS,
          iteration_marks: NO_MARKS,
        });
      }
      state.jobs.set(view.job_id, view);
    }
    return state;
  }

  /** The log holds events up to `seq` that this state did not need (a lean fold's skipped rows). */
  skipTo(seq: number): void {
    this.lastSeq = Math.max(this.lastSeq, seq);
  }

  private applyRunEvent(event: StoredEvent): void {
    switch (event.type) {
      case "RunStarted": {
        const data = event.data;
        const preflights = data.llm_preflight === undefined ? [] : Array.isArray(data.llm_preflight) ? data.llm_preflight : [data.llm_preflight];
        for (const preflight of preflights) {
          this.preflight.calls += 1;
          addTokens(this.preflight.tokens, preflight);
          addCost(this.preflight.cost, preflight.cost_usd);
        }
        if (this.started === null) this.startedTs = event.ts;
        const matrix = data.matrix.map((spec) => this.sharedSpec(spec));
        this.started = { ...data, matrix };
        if (data.config_name !== undefined) this.configName = data.config_name;
        this.invocations = data.invocation;
        this.interrupted = false;
        this.finished = false;
        this.notRun = {};
        const ids = matrix.map((spec) => spec.job_id);
        const known = new Set(ids);
        this.order = [...ids, ...this.order.filter((id) => !known.has(id))];
        for (const spec of matrix) {
          const view = this.jobs.get(spec.job_id);
          if (view === undefined) this.jobs.set(spec.job_id, newJobView(spec));
          else view.spec = spec;
        }
        return;
      }
      case "RunInterrupted":
        this.interrupted = true;
        this.notRun = { ...event.data.not_run };
        return;
      case "RunFinished":
        this.finished = true;
        this.notRun = { ...event.data.not_run };
        return;
      default:
        throw new Error(`${event.type} is not a run-level event`);
    }
  }

  private applyJobEvent(jobId: string, event: StoredEvent): void {
    const view = this.jobs.get(jobId);
    if (view === undefined) throw new Error(`event ${event.seq}: job ${jobId} is not in any matrix of this run`);
    this.foldIntoView(view, event, true);
  }

  /**
   * Gives a released view its details back, for its files to be rendered again (the job runs
   * again, or the run's LLM columns changed): its events as the log holds them (`history`, its
   * stream; those after this state's position are left out) folded again into a new view. The
   * run-level totals already count them and are not touched.
   */
  restoreDetail(jobId: string, history: readonly StoredEvent[]): void {
    const released = this.jobs.get(jobId);
    if (!this.detail || released === undefined || !released.released) return;
    const view = newJobView(released.spec);
    for (const event of history) if (event.seq <= this.lastSeq) this.foldIntoView(view, event, false);
    this.jobs.set(jobId, view);
  }

  /** `event` of the view's job folded into it; `countRunTotals`: into the run's LLM use too. */
  private foldIntoView(view: JobView, event: StoredEvent, countRunTotals: boolean): void {
    view.lastSeq = event.seq;
    if (this.detail) {
      const line = jobLogLine(event);
      if (line !== null) view.log += line;
      // Appended line by line, the log is a chain of V8 cons strings, three times its text in
      // memory; reading a character flattens it into one string (a reopened 10,000-job run's
      // fold: 38 → 12 MB of logs in a test of this alone).
      if (event.type === "JobFinished") view.log.charCodeAt(0);
    }
    switch (event.type) {
      case "JobQueued":
        view.attempt = event.data.attempt;
        view.state = "queued";
        view.evaluations = {};
        view.iterations = [];
        view.iterationMarks = [];
        view.llmCalls = 0;
        view.llmErrors = 0;
        view.llmAborted = 0;
        view.replayedCalls = 0;
        view.unusableReplies = 0;
        view.tokens = NO_TOKENS;
        view.cost = NO_COST;
        view.estimatedTokens = false;
        return;
      case "JobTransitioned":
        view.state = event.data.to;
        return;
      case "EvaluationCompleted":
        view.evaluations[event.data.phase] = event.data;
        return;
      case "IterationCompleted":
        view.iterations.push(event.data);
        view.iterationMarks.push({ wall_time: Date.parse(event.ts) / 1000, total_tokens: view.estimatedTokens ? null : view.tokens.total_tokens });
        return;
      case "LlmCallCompleted":
        ownTotals(view);
        view.llmCalls += 1;
        view.estimatedTokens ||= event.data.estimated;
        addTokens(view.tokens, event.data);
        addCost(view.cost, event.data.cost_usd);
        if (event.data.replayed === true) {
          view.replayedCalls += 1;
        } else {
          addTokens(view.allAttemptTokens, event.data);
          addCost(view.allAttemptCost, event.data.cost_usd);
          for (const use of this.usesOf(event.data, countRunTotals)) {
            use.calls += 1;
            addTokens(use.tokens, event.data);
            addCost(use.cost, event.data.cost_usd);
          }
        }
        return;
      case "LlmCallFailed":
        view.llmErrors += 1;
        for (const use of this.usesOf(event.data, countRunTotals)) use.failed += 1;
        return;
      case "LlmCallAborted":
        view.llmAborted += 1;
        for (const use of this.usesOf(event.data, countRunTotals)) use.aborted += 1;
        return;
      case "ReplyUnusable":
        view.unusableReplies += 1;
        return;
      case "LlmCallStarted":
      case "JournalDiverged":
      case "TaskOutput":
      case "CandidateEvaluated":
        return;
      case "JobFinished": {
        const data = event.data;
        // A lean state never renders a job's files: what only they need is not kept.
        const lean = !this.detail;
        view.finished = finishedAttempt(data, {
          feedback: this.shared.string(data.feedback),
          resolved: this.shared.value(data.resolved),
          agent: this.shared.value(data.agent),
          parameters: lean ? EMPTY_LIST : this.shared.value(data.parameters),
          initial_values: lean ? null : data.initial_values,
          final_values: lean ? null : data.final_values,
          best_values: lean ? null : data.best_values,
          ts: event.ts,
          tokens: view.tokens === NO_TOKENS ? NO_TOKENS : { ...view.tokens },
          llm_calls: view.llmCalls,
          llm_errors: view.llmErrors,
          replayed_calls: view.replayedCalls,
          unusable_replies: view.unusableReplies,
          cost_usd: view.llmCalls === 0 ? 0 : reportedCost(view.cost),
          estimated_tokens: view.estimatedTokens,
          iterations: lean ? NO_ITERATIONS : view.iterations,
          iteration_count: view.iterations.length,
          iteration_marks: lean ? NO_MARKS : view.iterationMarks,
        });
        if (lean) this.dropDetail(view);
        return;
      }
      default:
        throw new Error(`${event.type} is not a job event`);
    }
  }

  /** A matrix entry whose repeated parts (names, kwargs) are the instances other entries hold. */
  private sharedSpec(spec: JobSpecRecord): JobSpecRecord {
    const s = this.shared;
    return {
      ...spec,
      task_id: s.string(spec.task_id),
      suite: s.string(spec.suite),
      trainer_id: s.string(spec.trainer_id),
      ...(spec.llm_model !== undefined ? { llm_model: s.string(spec.llm_model) } : {}),
      raw_params: s.value(spec.raw_params),
      resolved_kwargs: s.value(spec.resolved_kwargs),
    };
  }

  /** The run's LLM use by the call's model and by its role (none when `counted` is false). */
  private usesOf(call: { model: string; role: string }, counted = true): LlmUse[] {
    if (!counted) return [];
    const of = (map: Map<string, LlmUse>, key: string) => {
      let use = map.get(key);
      if (use === undefined) map.set(key, (use = { calls: 0, failed: 0, aborted: 0, tokens: zeroTokens(), cost: zeroCost() }));
      return use;
    };
    return [of(this.llmByModel, call.model), of(this.llmByRole, call.role)];
  }

  /**
   * Drops what only the job's own files need (its log, evaluations, iteration history, parameter
   * values) once they are written, so that memory does not grow with the matrix: run-level files,
   * counts and totals still work; the job's files can no longer be rendered from this state.
   */
  releaseDetail(jobId: string): void {
    const view = this.jobs.get(jobId);
    if (view === undefined) return;
    this.dropDetail(view);
    if (view.finished !== null) {
      view.finished = finishedAttempt(view.finished, { iterations: NO_ITERATIONS, iteration_marks: NO_MARKS, initial_values: null, final_values: null, best_values: null, parameters: EMPTY_LIST });
    }
  }

  private dropDetail(view: JobView): void {
    view.released = true;
    view.log = "";
    // A job's next attempt starts with JobQueued, which gives it containers of its own again.
    view.evaluations = NO_EVALUATIONS;
    view.iterations = NO_ITERATIONS;
    view.iterationMarks = NO_MARKS;
  }

  /**
   * Forgets a job whose every event has been applied (a reader of the whole log that needs no
   * run-level file: `replay --verify`), so that the state holds the jobs being read, not the
   * matrix. A later start recreates its view, empty, as it does for a job that never ran.
   */
  forgetJob(jobId: string): void {
    this.jobs.delete(jobId);
  }

  /** Status of a job for resume: its latest finished status, or null if no attempt finished. */
  statusOf(jobId: string): FinishedStatus | null {
    return this.jobs.get(jobId)?.finished?.status ?? null;
  }

  /** Jobs in report order. */
  orderedJobs(): JobView[] {
    return this.order.map((id) => this.jobs.get(id)!);
  }
}

/** Empty, read-only containers for views with nothing in them (never queued, or released). */
const NO_EVALUATIONS: JobView["evaluations"] = Object.freeze({});
const EMPTY_LIST: readonly never[] = Object.freeze([]);
const NO_ITERATIONS = EMPTY_LIST as unknown as IterationData[];
const NO_MARKS = EMPTY_LIST as unknown as IterationMark[];

/**
 * The totals of a view that made no call: one read-only instance for every such view (four
 * objects per job; 10,000 call-less jobs' views took 7.4 MB of the heap, 5.2 MB since), replaced
 * by its own on the first call (`ownTotals`).
 */
const NO_TOKENS: TokenTotals = Object.freeze(zeroTokens());
const NO_COST: CostTotal = Object.freeze(zeroCost());

/** Gives `view` totals of its own where it shares the zero ones, before a call is added to them. */
function ownTotals(view: JobView): void {
  if (view.tokens === NO_TOKENS) view.tokens = zeroTokens();
  if (view.cost === NO_COST) view.cost = zeroCost();
  if (view.allAttemptTokens === NO_TOKENS) view.allAttemptTokens = zeroTokens();
  if (view.allAttemptCost === NO_COST) view.allAttemptCost = zeroCost();
}

function newJobView(spec: JobSpecRecord): JobView {
  return {
    job_id: spec.job_id,
    spec,
    attempt: 0,
    state: "queued",
    evaluations: NO_EVALUATIONS,
    iterations: NO_ITERATIONS,
    iterationMarks: NO_MARKS,
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

function addTokens(into: TokenTotals, add: TokenTotals): void {
  into.prompt_tokens += add.prompt_tokens;
  into.completion_tokens += add.completion_tokens;
  into.total_tokens += add.total_tokens;
}
