/**
 * Pure stepping of the job machine: the engine asks "given this state, what does this outcome
 * lead to?" and records the answer as an event before doing any more work.
 */
import { getInitialSnapshot, transition, type SnapshotFrom } from "xstate";
import { jobMachine, type JobMachineEvent, type JobState, type RecordedJobEvent } from "./job.machine.js";

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
  return computeStepRecorded(snapshot, event)?.snapshot ?? null;
}

/** A step, and the event it records: the one the machine raised in its place (a verdict), else the event. */
function computeStepRecorded(snapshot: JobSnapshot, event: JobMachineEvent): { snapshot: JobSnapshot; recorded: JobMachineEvent } | null {
  if (!snapshot.can(event)) return null;
  const [next, actions] = transition(jobMachine, snapshot, event);
  let recorded: JobMachineEvent = event;
  for (const action of actions) {
    const raised = (action as { type?: string; params?: { event?: JobMachineEvent } }).params?.event;
    if (action.type === "xstate.raise" && raised !== undefined) recorded = raised;
  }
  return { snapshot: next, recorded };
}

/** Events the machine takes from a phase but never records: it records what they lead to. */
const REPORT_EVENTS: ReadonlySet<string> = new Set(["TRAINING_ENDED"]);

/**
 * The next snapshot and the event the transition records: for a report (`TRAINING_ENDED`), the
 * verdict its guards picked, which leads from the same snapshot to the same next one.
 */
export function stepJobRecorded(snapshot: JobSnapshot, event: JobMachineEvent): { snapshot: JobSnapshot; recorded: RecordedJobEvent } {
  const step = computeStepRecorded(snapshot, event);
  if (step === null) throw new IllegalJobTransition(`job machine refuses ${event.type} in state '${jobStateOf(snapshot)}'`);
  if (REPORT_EVENTS.has(step.recorded.type)) throw new IllegalJobTransition(`job machine took ${event.type} in state '${jobStateOf(snapshot)}' without a verdict`);
  return step as { snapshot: JobSnapshot; recorded: RecordedJobEvent };
}

/** A recorded event as the machine takes it; a report is never recorded, so a log holding one is refused. */
export function recordedEvent(event: JobMachineEvent): RecordedJobEvent {
  if (REPORT_EVENTS.has(event.type)) throw new IllegalJobTransition(`${event.type} is a phase's report, never a recorded transition`);
  return event as RecordedJobEvent;
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
