/**
 * The writer's views as text, to be saved with the log position they reflect (writer-state.ts):
 * a writer reopening a big finished run restores them instead of folding the log again.
 * Everything in them came from the log as JSON, so JSON gives it back exactly.
 */
import type { JobSpecRecord } from "../event-schema.js";
import { RunState } from "../run-state.js";
import { SnapshotValues } from "../snapshot-values.js";
import { finishedAttempt, newJobView, NO_FINISHED_DETAIL, type FinishedAttempt, type JobView, type RunStartedData } from "./job-view.js";
import { runHeaderProjection, sharedSpec } from "./run-header-projection.js";
import type { LlmUse, TokenTotals } from "./totals.js";

/** What a finished attempt keeps in the writer's views: only a job's own files show the rest. */
type KeptFinished = Omit<FinishedAttempt, keyof typeof NO_FINISHED_DETAIL>;

/** Every field the writer's views keep, in the order a snapshot writes their values (a record, so that none can be missed). */
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
  metrics: true,
} satisfies Record<keyof KeptFinished, true>) as (keyof KeptFinished)[];

/** Fields whose values repeat across jobs: a snapshot writes their index into its values. */
const INDEXED_FINISHED_FIELDS: ReadonlySet<keyof KeptFinished> = new Set(["feedback", "resolved", "agent", "tokens"]);

/** A finished attempt in a snapshot: the values of `KEPT_FINISHED_FIELDS` in that order, the indexed ones as indexes. */
type SavedFinished = unknown[];

/** A job spec in a snapshot: its kwargs as indexes into the snapshot's values. */
type SavedSpec = Omit<JobSpecRecord, "raw_params" | "resolved_kwargs"> & { readonly raw_params: number; readonly resolved_kwargs: number };

/**
 * A job's view in a snapshot: its id, and only the fields that differ from a view no event touched
 * (its spec when not the matrix's): mostly zeros and empty lists otherwise (see docs/performance.md).
 */
type SavedView = Partial<Omit<JobView, "spec" | "finished">> & {
  readonly job_id: string;
  readonly spec?: SavedSpec;
  finished?: SavedFinished;
};

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
  iterationCount: true,
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
const DEFAULT_FIELD_JSON: ReadonlyMap<string, string> = (() => {
  const fresh = newJobView({ job_id: "" } as JobSpecRecord);
  return new Map(DEFAULTED_VIEW_FIELDS.map((field) => [field, JSON.stringify(fresh[field])]));
})();

/** What a snapshot holds: the store's fields, with maps as entry lists. */
interface WriterSnapshot
  extends Pick<RunState, "lastSeq" | "runId" | "configName" | "startedTs" | "lastTs" | "invocations" | "notRun" | "interrupted" | "finished" | "preflight" | "order"> {
  readonly started: (Omit<RunStartedData, "matrix"> & { readonly matrix: readonly SavedSpec[] }) | null;
  readonly jobs: SavedView[];
  /** What the indexes in `started.matrix` and `jobs` refer to. */
  readonly values: unknown[];
  readonly llmByModel: [string, LlmUse][];
  readonly llmByRole: [string, LlmUse][];
}

/**
 * What a released view holds empty (views/view-memory.ts): a snapshot saves every view as released,
 * so these are never written; the machine state too (only a job's own files show it).
 */
const DETAIL_VIEW_FIELDS: ReadonlySet<DefaultedViewField> = new Set(["state", "evaluations", "iterations", "iterationMarks", "log", "released"]);

/** The run's views as a snapshot's text: each job as its released view holds it (what a writer reads). */
export function writerSnapshot(state: RunState): string {
  const { lastSeq, runId, started, configName, startedTs, lastTs, invocations, notRun, interrupted, finished, preflight, order } = state;
  // Each job's spec is in the matrix, and the values jobs repeat are written once each.
  const values = new SnapshotValues();
  const savedSpec = (spec: JobSpecRecord): SavedSpec => ({ ...spec, raw_params: values.indexOf(spec.raw_params), resolved_kwargs: values.indexOf(spec.resolved_kwargs) });
  const inMatrix = new Set(started?.matrix ?? []);
  const jobs = [...state.jobs.values()].map((view) => {
    const saved: SavedView = { job_id: view.job_id, ...(inMatrix.has(view.spec) ? {} : { spec: savedSpec(view.spec) }) };
    for (const key of DEFAULTED_VIEW_FIELDS) {
      if (DETAIL_VIEW_FIELDS.has(key)) continue;
      if (JSON.stringify(view[key]) !== DEFAULT_FIELD_JSON.get(key)) (saved as Record<string, unknown>)[key] = view[key];
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
    llmByModel: [...state.llmByModel],
    llmByRole: [...state.llmByRole],
  } satisfies WriterSnapshot);
}

/** The views a `writerSnapshot` holds, each released; throws when the text is not one. */
export function fromWriterSnapshot(text: string): RunState {
  const saved = JSON.parse(text) as WriterSnapshot;
  const state = new RunState();
  state.lastSeq = saved.lastSeq;
  state.runId = saved.runId;
  state.lastTs = saved.lastTs;
  const header = state.view(runHeaderProjection);
  header.configName = saved.configName;
  header.startedTs = saved.startedTs;
  header.invocations = saved.invocations;
  header.notRun = saved.notRun;
  header.interrupted = saved.interrupted;
  header.finished = saved.finished;
  header.order = saved.order;
  Object.assign(state.preflight, saved.preflight);
  for (const [model, use] of saved.llmByModel) state.llmByModel.set(model, use);
  for (const [role, use] of saved.llmByRole) state.llmByRole.set(role, use);
  // Views share their matrix entries with `started`, and every job its repeated values, as in a fold.
  const values = saved.values.map((value) => state.shared.value(value));
  // Field by field, not spread (see run-header-projection.ts's `sharedSpec`).
  const spec = (s: SavedSpec) => {
    const raw_params = values[s.raw_params] as JobSpecRecord["raw_params"];
    const resolved_kwargs = values[s.resolved_kwargs] as JobSpecRecord["resolved_kwargs"];
    const { job_id, seed } = s;
    const [task_id, suite, trainer_id] = [state.shared.string(s.task_id), state.shared.string(s.suite), state.shared.string(s.trainer_id)];
    const llm_model = s.llm_model === undefined ? undefined : state.shared.string(s.llm_model);
    return sharedSpec(state.shared, llm_model === undefined ? { job_id, task_id, suite, trainer_id, seed, raw_params, resolved_kwargs } : { job_id, task_id, suite, trainer_id, seed, llm_model, raw_params, resolved_kwargs });
  };
  const specs = new Map<string, JobSpecRecord>();
  if (saved.started !== null) {
    const matrix = saved.started.matrix.map(spec);
    for (const s of matrix) specs.set(s.job_id, s);
    header.started = { ...saved.started, matrix };
  }
  for (const saving of saved.jobs) {
    // A new view (its own zeroed totals, which later events add to), with what the snapshot kept.
    const view = newJobView(saving.spec === undefined ? specs.get(saving.job_id)! : spec(saving.spec));
    for (const key of DEFAULTED_VIEW_FIELDS) if (saving[key] !== undefined && !DETAIL_VIEW_FIELDS.has(key)) (view as unknown as Record<string, unknown>)[key] = saving[key];
    view.released = true;
    if (saving.finished !== undefined) {
      const kept: Record<string, unknown> = {};
      KEPT_FINISHED_FIELDS.forEach((key, i) => (kept[key] = INDEXED_FINISHED_FIELDS.has(key) ? values[saving.finished![i] as number] : saving.finished![i]));
      // Each attempt its own totals, as a fold gives it.
      view.finished = finishedAttempt(kept as unknown as FinishedAttempt, {
        // Field by field, not spread: see job-attempt-projection.ts.
        parameters: NO_FINISHED_DETAIL.parameters,
        initial_values: NO_FINISHED_DETAIL.initial_values,
        final_values: NO_FINISHED_DETAIL.final_values,
        best_values: NO_FINISHED_DETAIL.best_values,
        iterations: NO_FINISHED_DETAIL.iterations,
        iteration_marks: NO_FINISHED_DETAIL.iteration_marks,
        tokens: { ...(kept.tokens as TokenTotals) },
      });
    }
    state.jobs.set(view.job_id, view);
  }
  return state;
}
