/**
 * A projection: the event types it folds and how one event changes its view. Run projections fold
 * run-wide views (the run's header, its LLM use) held by the view store (`RunState`); job
 * projections fold a job's events into that job's one view object, which all of them share (one
 * object per job keeps a big run's memory flat). The projector (projector.ts) runs a table of them.
 */
import type { EventType, StoredEvent } from "../event-schema.js";
import type { RunState } from "../run-state.js";
import type { JobView } from "./job-view.js";

export interface RunProjection {
  readonly canHandle: ReadonlySet<EventType>;
  evolve(run: RunState, event: StoredEvent): void;
}

export interface JobProjection {
  readonly canHandle: ReadonlySet<EventType>;
  /** `run`: the store, for what the job's view shares with other jobs (interned values). */
  evolve(view: JobView, event: StoredEvent, run: RunState): void;
}
