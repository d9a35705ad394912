/**
 * The fold every projection starts from: the run's events reduced to one view per job (its
 * latest attempt) plus run-level facts. Applying an event twice is the same as applying it once
 * (events at or below `lastSeq` are ignored), so live runs and `replay` reach the same state.
 */
import type { EventData, FinishedStatus, JobSpecRecord, StoredEvent } from "./event-schema.js";

export type RunStartedData = EventData<"RunStarted">;
export type JobFinishedData = EventData<"JobFinished">;
export type EvaluationData = EventData<"EvaluationCompleted">;
export type IterationData = EventData<"IterationCompleted">;

export interface TokenTotals {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
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
  llmCalls: number;
  tokens: TokenTotals;
  estimatedTokens: boolean;
  /** The latest attempt that finished, with what that attempt did. */
  finished: FinishedAttempt | null;
  /** Tokens of every attempt, finished or not: what the run actually spent. */
  allAttemptTokens: TokenTotals;
  /** Every event of the job, every attempt, for its human-readable log. */
  events: StoredEvent[];
}

export interface FinishedAttempt extends JobFinishedData {
  readonly ts: string;
  readonly tokens: TokenTotals;
  readonly llm_calls: number;
  readonly estimated_tokens: boolean;
  readonly iterations: readonly IterationData[];
}

export const zeroTokens = (): TokenTotals => ({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });

export class RunState {
  lastSeq = 0;
  runId = "";
  /** The latest RunStarted (a resume appends a new one). */
  started: RunStartedData | null = null;
  startedTs = "";
  lastTs = "";
  invocations = 0;
  /** Why jobs of the latest invocation never ran, by job id. */
  notRun: Record<string, string> = {};
  interrupted = false;
  finished = false;
  readonly jobs = new Map<string, JobView>();
  /** Job ids in report order: the latest matrix, then jobs only earlier invocations knew. */
  order: string[] = [];

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
    if (event.job_id !== null) this.applyJobEvent(event.job_id, event);
    else this.applyRunEvent(event);
  }

  private applyRunEvent(event: StoredEvent): void {
    switch (event.type) {
      case "RunStarted": {
        const data = event.data;
        if (this.started === null) this.startedTs = event.ts;
        this.started = data;
        this.invocations = data.invocation;
        this.interrupted = false;
        this.finished = false;
        this.notRun = {};
        const ids = data.matrix.map((spec) => spec.job_id);
        const known = new Set(ids);
        this.order = [...ids, ...this.order.filter((id) => !known.has(id))];
        for (const spec of data.matrix) {
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
    view.events.push(event);
    switch (event.type) {
      case "JobQueued":
        view.attempt = event.data.attempt;
        view.state = "queued";
        view.evaluations = {};
        view.iterations = [];
        view.llmCalls = 0;
        view.tokens = zeroTokens();
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
        return;
      case "LlmCallCompleted":
        view.llmCalls += 1;
        view.estimatedTokens ||= event.data.estimated;
        addTokens(view.tokens, event.data);
        addTokens(view.allAttemptTokens, event.data);
        return;
      case "JobFinished":
        view.finished = {
          ...event.data,
          ts: event.ts,
          tokens: { ...view.tokens },
          llm_calls: view.llmCalls,
          estimated_tokens: view.estimatedTokens,
          iterations: view.iterations,
        };
        return;
      default:
        throw new Error(`${event.type} is not a job event`);
    }
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

function newJobView(spec: JobSpecRecord): JobView {
  return {
    job_id: spec.job_id,
    spec,
    attempt: 0,
    state: "queued",
    evaluations: {},
    iterations: [],
    llmCalls: 0,
    tokens: zeroTokens(),
    estimatedTokens: false,
    finished: null,
    allAttemptTokens: zeroTokens(),
    events: [],
  };
}

function addTokens(into: TokenTotals, add: TokenTotals): void {
  into.prompt_tokens += add.prompt_tokens;
  into.completion_tokens += add.completion_tokens;
  into.total_tokens += add.total_tokens;
}
