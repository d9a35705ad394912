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

/** A step: the next snapshot, and the event it records (for a report, the verdict the machine raised). */
interface Step {
  readonly snapshot: JobSnapshot;
  readonly recorded: JobMachineEvent;
}

/**
 * Answers per snapshot and event (null: refused). The machine is pure and snapshots are
 * immutable, so the answer is the same every time: every job of a run walks the same few
 * snapshots (queued → building → ...) with the same few events, and XState is asked once per
 * step, not once per job (a transition is the costly part of a trivial job's bookkeeping: see
 * docs/performance.md). An event with data is keyed by its JSON, at most `MAX_KEYED` per snapshot
 * (reasons and reports that vary from job to job are asked every time).
 */
const answers = new WeakMap<JobSnapshot, Map<string, Step | null>>();
const MAX_KEYED = 64;

function computeStep(snapshot: JobSnapshot, event: JobMachineEvent): Step | null {
  if (!snapshot.can(event)) return null;
  const [next, actions] = transition(jobMachine, snapshot, event);
  let recorded: JobMachineEvent = event;
  for (const action of actions) {
    const raised = (action as { params?: { event?: JobMachineEvent } }).params?.event;
    if (action.type === "xstate.raise" && raised !== undefined) recorded = raised;
  }
  return { snapshot: next, recorded };
}

function cachedStep(snapshot: JobSnapshot, event: JobMachineEvent): Step | null {
  const key = Object.keys(event).length === 1 ? event.type : JSON.stringify(event);
  let known = answers.get(snapshot);
  if (known === undefined) answers.set(snapshot, (known = new Map()));
  let step = known.get(key);
  if (step === undefined) {
    step = computeStep(snapshot, event);
    if (known.size < MAX_KEYED) known.set(key, step);
  }
  return step;
}

/** Events the machine takes from a phase but never records: it records what they lead to. */
const REPORT_EVENTS: ReadonlySet<string> = new Set(["TRAINING_ENDED"]);

/**
 * The next snapshot and the event the transition records: for a report (`TRAINING_ENDED`), the
 * verdict its guards picked, which leads from the same snapshot to the same next one.
 */
export function stepJobRecorded(snapshot: JobSnapshot, event: JobMachineEvent): { snapshot: JobSnapshot; recorded: RecordedJobEvent } {
  const step = cachedStep(snapshot, event);
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
  const next = cachedStep(snapshot, event);
  if (next === null) throw new IllegalJobTransition(`job machine refuses ${event.type} in state '${jobStateOf(snapshot)}'`);
  return next.snapshot;
}

export function isTerminal(snapshot: JobSnapshot): boolean {
  return snapshot.hasTag("terminal");
}
