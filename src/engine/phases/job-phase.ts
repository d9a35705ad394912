/**
 * A phase: the work one active state of the job machine stands for. It runs with the attempt's
 * scope and ends with the machine event (and the facts, contents and outcome that go with it)
 * that the runner records before the next phase starts; it stops the attempt early by throwing
 * a `JobStop`, or by its work ending on the attempt's signal.
 */
import type { JobMachineEvent } from "../../../machines/job.machine.js";
import type { Contents } from "../../events/content-ref.js";
import type { JobFact, JobOutcome } from "../job-decider.js";
import type { AttemptScope } from "./attempt-scope.js";

export interface PhaseEnd {
  readonly event: JobMachineEvent;
  /** Recorded before the transition, in the same commit. */
  readonly facts?: readonly JobFact[];
  /** Required when the event ends the job. */
  readonly outcome?: JobOutcome;
  /** Texts the facts refer to (candidates), committed with them. */
  readonly contents?: Contents;
}

export type JobPhase = (scope: AttemptScope) => Promise<PhaseEnd>;
