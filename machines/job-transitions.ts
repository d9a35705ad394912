/**
 * Pure stepping of the job machine: the engine asks "given this state, what does this outcome
 * lead to?" and records the answer as an event before doing any more work.
 */
import { getInitialSnapshot, transition, type SnapshotFrom } from "xstate";
import { jobMachine, type JobMachineEvent, type JobState } from "./job.machine.js";

export type JobSnapshot = SnapshotFrom<typeof jobMachine>;

export class IllegalJobTransition extends Error {
  override readonly name = "IllegalJobTransition";
}

/** Snapshots are immutable (each step returns a new one), so every job can start from the same one. */
let initial: JobSnapshot | undefined;

export function initialJobSnapshot(): JobSnapshot {
  initial ??= getInitialSnapshot(jobMachine);
  return initial;
}

export function jobStateOf(snapshot: JobSnapshot): JobState {
  return snapshot.value as JobState;
}

/** The next snapshot, or an `IllegalJobTransition` when the machine refuses the event. */
export function stepJob(snapshot: JobSnapshot, event: JobMachineEvent): JobSnapshot {
  if (!snapshot.can(event)) {
    throw new IllegalJobTransition(`job machine refuses ${event.type} in state '${jobStateOf(snapshot)}'`);
  }
  const [next] = transition(jobMachine, snapshot, event);
  return next;
}

export function isTerminal(snapshot: JobSnapshot): boolean {
  return snapshot.hasTag("terminal");
}
