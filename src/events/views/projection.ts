/**
 * A projection: the event types it folds, the state it starts from and how one event changes it.
 * The view store (`RunState`) keeps each run projection's state, made by its `initialState` the
 * first time it is asked for (views/projector.ts runs a table of them), so a new read model of the
 * run is one file and one table entry. Job projections fold a job's events into that job's one
 * view object (`newJobView` is their initial state), which all of them share: one object per job
 * keeps a big run's memory flat.
 */
import type { EventType, StoredEvent } from "../event-schema.js";
import type { RunState } from "../run-state.js";
import type { JobView } from "./job-view.js";

export interface Projection<S> {
  readonly canHandle: ReadonlySet<EventType>;
  /** The state before any event. */
  initialState(): S;
  /**
   * Folds `event` into `state` (in place). `store`: the other views, for what this one shares
   * with them (interned values; the run header makes each job's view).
   */
  evolve(state: S, event: StoredEvent, store: RunState): void;
}

/** A projection over the whole run, as a table holds it (its state is the store's to keep). */
export type RunProjection = Projection<unknown>;

export interface JobProjection {
  readonly canHandle: ReadonlySet<EventType>;
  /** `run`: the store, for what the job's view shares with other jobs (interned values). */
  evolve(view: JobView, event: StoredEvent, run: RunState): void;
}
