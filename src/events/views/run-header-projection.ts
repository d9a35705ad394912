/**
 * The run's header: identity, latest start (and its matrix, one view per job), invocation count,
 * how it ended and the report order of its jobs.
 */
import type { JobSpecRecord } from "../event-schema.js";
import type { SharedValues } from "../shared-values.js";
import { newJobView, type RunStartedData } from "./job-view.js";
import type { Projection } from "./projection.js";

export interface RunHeader {
  /** The latest RunStarted (a resume appends a new one). */
  started: RunStartedData | null;
  /** The latest config name an invocation recorded (a resume from the run's snapshot records none). */
  configName: string | null;
  startedTs: string;
  invocations: number;
  /** Why jobs of the latest invocation never ran, by job id. */
  notRun: Record<string, string>;
  interrupted: boolean;
  finished: boolean;
  /** Job ids in report order: the latest matrix, then jobs only earlier invocations knew. */
  order: string[];
}

export const runHeaderProjection: Projection<RunHeader> = {
  canHandle: new Set(["RunStarted", "RunInterrupted", "RunFinished"]),
  initialState: () => ({ started: null, configName: null, startedTs: "", invocations: 0, notRun: {}, interrupted: false, finished: false, order: [] }),
  evolve(run, event, store) {
    switch (event.type) {
      case "RunStarted": {
        const data = event.data;
        if (run.started === null) run.startedTs = event.ts;
        const matrix = data.matrix.map((spec) => sharedSpec(store.shared, spec));
        run.started = { ...data, matrix };
        if (data.config_name !== undefined) run.configName = data.config_name;
        run.invocations = data.invocation;
        run.interrupted = false;
        run.finished = false;
        run.notRun = {};
        const ids = matrix.map((spec) => spec.job_id);
        const known = new Set(ids);
        run.order = [...ids, ...run.order.filter((id) => !known.has(id))];
        // Each job's view, which the job projections fold into.
        for (const spec of matrix) {
          const view = store.jobs.get(spec.job_id);
          if (view === undefined) store.jobs.set(spec.job_id, newJobView(spec));
          else view.spec = spec;
        }
        return;
      }
      case "RunInterrupted":
        run.interrupted = true;
        run.notRun = { ...event.data.not_run };
        return;
      case "RunFinished":
        run.finished = true;
        run.notRun = { ...event.data.not_run };
        return;
      default:
        throw new Error(`${event.type} is not a run-level event`);
    }
  },
};

/**
 * A matrix entry whose repeated parts (names, kwargs) are the instances other entries hold: `spec`
 * itself when it holds them already (a live run's plan shares a cell's kwargs, so the writer's
 * views and the derived files' views hold the plan's own entries), else a copy built field by
 * field (a spread then added fields gave every entry a V8 map of its own; docs/performance.md,
 * ledger 4a884e8).
 */
export function sharedSpec(s: SharedValues, spec: JobSpecRecord): JobSpecRecord {
  const task_id = s.string(spec.task_id);
  const suite = s.string(spec.suite);
  const trainer_id = s.string(spec.trainer_id);
  const llm_model = spec.llm_model === undefined ? undefined : s.string(spec.llm_model);
  const raw_params = s.value(spec.raw_params);
  const resolved_kwargs = s.value(spec.resolved_kwargs);
  if (raw_params === spec.raw_params && resolved_kwargs === spec.resolved_kwargs && sameInstances(spec, task_id, suite, trainer_id, llm_model)) return spec;
  const { job_id, seed } = spec;
  if (llm_model === undefined) return { job_id, task_id, suite, trainer_id, seed, raw_params, resolved_kwargs };
  return { job_id, task_id, suite, trainer_id, seed, llm_model, raw_params, resolved_kwargs };
}

/**
 * Strings compare by value, so whether `spec` holds the shared strings themselves cannot be asked;
 * a spec whose kwargs are shared came from a plan (or an earlier copy) whose names are shared too.
 */
const sameInstances = (spec: JobSpecRecord, task_id: string, suite: string, trainer_id: string, llm_model: string | undefined) =>
  spec.task_id === task_id && spec.suite === suite && spec.trainer_id === trainer_id && spec.llm_model === llm_model;
