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

/**
 * Answers to events that carry nothing but their type, per snapshot (null: refused). The machine
 * is pure and snapshots are immutable, so the answer is the same every time: every job of a run
 * walks the same few snapshots (queued → building → ...) and XState is asked once per step, not
 * once per job. Events with a reason are not kept (each reason would be a new entry).
 */
const answers = new WeakMap<JobSnapshot, Map<string, JobSnapshot | null>>();

function computeStep(snapshot: JobSnapshot, event: JobMachineEvent): JobSnapshot | null {
  if (!snapshot.can(event)) return null;
  const [next] = transition(jobMachine, snapshot, event);
  return next;
}

/** The next snapshot, or an `IllegalJobTransition` when the machine refuses the event. */
export function stepJob(snapshot: JobSnapshot, event: JobMachineEvent): JobSnapshot {
  let next: JobSnapshot | null | undefined;
  if (Object.keys(event).length === 1) {
    let known = answers.get(snapshot);
    if (known === undefined) answers.set(snapshot, (known = new Map()));
    next = known.get(event.type);
    if (next === undefined) known.set(event.type, (next = computeStep(snapshot, event)));
  } else {
    next = computeStep(snapshot, event);
  }
  if (next === null) throw new IllegalJobTransition(`job machine refuses ${event.type} in state '${jobStateOf(snapshot)}'`);
  return next;
}

export function isTerminal(snapshot: JobSnapshot): boolean {
  return snapshot.hasTag("terminal");
}
