/**
 * The run's jobs as live XState actors, for an inspector (`run --inspect`). The engine steps the
 * job machine as a pure function and keeps no actors; this subscriber gives each job attempt an
 * actor of the same machine and sends it the transitions the log committed, so an inspector sees
 * every job register, receive its events and change state. It reads committed events only: it
 * cannot change the log, a result or a job's outcome (commit, then notify).
 */
import { createActor, type Actor, type InspectionEvent, type Observer } from "xstate";
import { jobMachine } from "../../machines/job.machine.js";
import type { Subscriber } from "../events/event-bus.js";
import type { RunState } from "../events/run-state.js";
import { machineEventOf } from "./job-decider.js";

/** The inspector port: XState's inspection observer, and a close that delivers what was observed. */
export interface ActorInspector {
  readonly inspect: Observer<InspectionEvent>;
  /** Sends what is still buffered (within its own time limit) and disconnects. */
  close(): Promise<void>;
}

export interface JobActorInspection {
  /** The subscriber that drives the actors (one per run session). */
  subscriber(state: RunState): Subscriber;
  /** Stops the actors still running (an invocation that ended early), then closes the inspector. */
  close(): Promise<void>;
}

export function jobActorInspection(inspector: ActorInspector): JobActorInspection {
  const actors = new Map<string, Actor<typeof jobMachine>>();
  const stop = (jobId: string): void => {
    actors.get(jobId)?.stop();
    actors.delete(jobId);
  };
  return {
    subscriber: (state) => ({
      name: "inspector",
      handle: (events) => {
        for (const event of events) {
          if (event.job_id === null) continue;
          if (event.type === "JobQueued") {
            // One actor per attempt, named by the job id (what results.csv and the job's folder are named by).
            stop(event.job_id);
            const actor = createActor(jobMachine, { id: event.job_id, inspect: inspector.inspect });
            actors.set(event.job_id, actor);
            actor.start();
          } else if (event.type === "JobTransitioned") {
            actors.get(event.job_id)?.send(machineEventOf(event.data));
          } else if (event.type === "JobFinished") {
            stop(event.job_id);
          }
        }
      },
      // Missed transitions are not replayed to the inspector; actors of jobs that have finished since are stopped.
      catchUp: () => {
        for (const jobId of [...actors.keys()]) {
          const view = state.jobs.get(jobId);
          if (view === undefined || (view.finished !== null && view.finished.attempt === view.attempt)) stop(jobId);
        }
      },
    }),
    close: async () => {
      for (const jobId of [...actors.keys()]) stop(jobId);
      await inspector.close();
    },
  };
}
