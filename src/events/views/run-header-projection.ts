/**
 * The run's header: identity, latest start (and its matrix, one view per job), invocation count,
 * how it ended and the report order of its jobs.
 */
import type { JobSpecRecord } from "../event-schema.js";
import type { SharedValues } from "../shared-values.js";
import { newJobView } from "./job-view.js";
import type { RunProjection } from "./projection.js";

export const runHeaderProjection: RunProjection = {
  canHandle: new Set(["RunStarted", "RunInterrupted", "RunFinished"]),
  evolve(run, event) {
    switch (event.type) {
      case "RunStarted": {
        const data = event.data;
        if (run.started === null) run.startedTs = event.ts;
        const matrix = data.matrix.map((spec) => sharedSpec(run.shared, spec));
        run.started = { ...data, matrix };
        if (data.config_name !== undefined) run.configName = data.config_name;
        run.invocations = data.invocation;
        run.interrupted = false;
        run.finished = false;
        run.notRun = {};
        const ids = matrix.map((spec) => spec.job_id);
        const known = new Set(ids);
        run.order = [...ids, ...run.order.filter((id) => !known.has(id))];
        for (const spec of matrix) {
          const view = run.jobs.get(spec.job_id);
          if (view === undefined) run.jobs.set(spec.job_id, newJobView(spec));
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

/** A matrix entry whose repeated parts (names, kwargs) are the instances other entries hold. */
export function sharedSpec(s: SharedValues, spec: JobSpecRecord): JobSpecRecord {
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
