/**
 * The job decider: `decide(state, command) → events`, with the job machine as its state. Every
 * event of a job stream is produced here, so the log holds only what the machine allows:
 * transitions come from the machine's answer, and `JobFinished.status` (what every report reads)
 * from its final state alone. `evolve` folds committed events back into the state; the same pair
 * re-checks a whole log (`replay --verify`). The recorder keeps its state by folding what `decide`
 * returned with `evolve`, so a live job's state is the one a replay of its log reaches.
 *
 * Pure: no I/O, no clock. The engine performs each phase and turns its outcome into a command.
 */
import * as Data from "effect/Data";
import { initialJobSnapshot, isTerminal, jobStateOf, recordedEvent, stepJob, stepJobRecorded, type JobSnapshot } from "../../machines/job-transitions.js";
import type { JobMachineEvent, RecordedJobEvent, TerminalJobState } from "../../machines/job.machine.js";
import { JOB_FACT_TYPES, type EventBody, type EventData, type FinishedStatus, type NewEvent } from "../events/event-schema.js";

/** Facts recorded while a phase runs. */
export type JobFact = Extract<NewEvent, { type: (typeof JOB_FACT_TYPES)[number] }>;

/** What the attempt produced, for `JobFinished`; status and (unless the job is done) feedback come from the machine. */
export type JobOutcome = Omit<EventData<"JobFinished">, "attempt" | "status">;

export type JobCommand =
  /** Begin attempt `attempt` (the previous one finished, or was abandoned by a crash). */
  | { readonly type: "StartAttempt"; readonly attempt: number; readonly invocation: number; readonly deadline: string | null }
  | { readonly type: "RecordFacts"; readonly facts: readonly JobFact[] }
  /** A phase ended: its facts, then the machine event; `outcome` is required when that ends the job. */
  | {
      readonly type: "Advance";
      readonly event: JobMachineEvent;
      readonly facts?: readonly JobFact[];
      readonly outcome?: JobOutcome;
      /** What the one-line reason leaves out (a stack trace), for the job's stdout.log. */
      readonly detail?: string;
    };

export class JobCommandRejected extends Data.TaggedError("JobCommandRejected")<{ readonly jobId: string; readonly command: string; readonly reason: string }> {
  override get message(): string {
    return `job ${this.jobId}: ${this.command} rejected: ${this.reason}`;
  }
}

export interface JobDecisionState {
  /** Events in the job's stream: the version the next append expects. */
  readonly version: number;
  /** The latest attempt (0 before the first). */
  readonly attempt: number;
  /** The machine in the latest attempt. */
  readonly snapshot: JobSnapshot;
  /** Whether the latest attempt recorded `JobFinished`. */
  readonly finished: boolean;
}

export const initialJobDecisionState = (): JobDecisionState => ({ version: 0, attempt: 0, snapshot: initialJobSnapshot(), finished: false });

const STATUS_OF_FINAL_STATE: Readonly<Record<TerminalJobState, FinishedStatus>> = {
  done: "ok",
  failed: "failed",
  timeout: "timeout",
  skipped: "skipped",
  cancelled: "cancelled",
  budget_exhausted: "budget_exhausted",
  no_valid_candidate: "no_valid_candidate",
};

/** The status a job has when its machine ends in `state`. */
export const finishedStatusOf = (state: TerminalJobState): FinishedStatus => STATUS_OF_FINAL_STATE[state];

/** The machine event a recorded transition stands for. */
export function machineEventOf(data: EventData<"JobTransitioned">): JobMachineEvent {
  return (data.reason === null ? { type: data.event } : { type: data.event, reason: data.reason }) as JobMachineEvent;
}

/** Folds one committed event of the job's stream into the state. */
export function evolve(state: JobDecisionState, event: EventBody): JobDecisionState {
  const version = state.version + 1;
  switch (event.type) {
    case "JobQueued":
      return { version, attempt: event.data.attempt, snapshot: initialJobSnapshot(), finished: false };
    case "JobTransitioned":
      return { ...state, version, snapshot: stepJob(state.snapshot, recordedEvent(machineEventOf(event.data))) };
    case "JobFinished":
      return { ...state, version, finished: true };
    default:
      return { ...state, version };
  }
}

export const foldJobStream = (events: Iterable<EventBody>, from: JobDecisionState = initialJobDecisionState()): JobDecisionState => {
  let state = from;
  for (const event of events) state = evolve(state, event);
  return state;
};

/** The events `command` adds to job `jobId`'s stream in `state`; throws `JobCommandRejected`. */
export function decide(jobId: string, state: JobDecisionState, command: JobCommand): NewEvent[] {
  const reject = (reason: string): never => {
    throw new JobCommandRejected({ jobId, command: command.type === "Advance" ? `Advance(${command.event.type})` : command.type, reason });
  };
  const attempt = state.attempt;
  const inProgress = attempt > 0 && !state.finished && jobStateOf(state.snapshot) !== "queued";
  const stamp = (facts: readonly JobFact[]): NewEvent[] =>
    facts.map((fact) => {
      if (fact.data.attempt !== attempt) reject(`a fact of attempt ${fact.data.attempt} in attempt ${attempt}`);
      return { ...fact, job_id: jobId } as NewEvent;
    });
  const step = (from: JobSnapshot, event: JobMachineEvent): { snapshot: JobSnapshot; recorded: RecordedJobEvent } => {
    try {
      return stepJobRecorded(from, event);
    } catch {
      return reject(`the machine refuses ${event.type} in state '${jobStateOf(from)}'`);
    }
  };

  switch (command.type) {
    case "StartAttempt": {
      if (command.attempt !== attempt + 1) reject(`attempt ${command.attempt} cannot follow attempt ${attempt}`);
      const from = initialJobSnapshot();
      const to = step(from, { type: "START" }).snapshot;
      return [
        { type: "JobQueued", job_id: jobId, data: { attempt: command.attempt, invocation: command.invocation } },
        { type: "JobTransitioned", job_id: jobId, data: { attempt: command.attempt, from: jobStateOf(from), to: jobStateOf(to), event: "START", reason: null, deadline: command.deadline } },
      ];
    }
    case "RecordFacts": {
      if (!inProgress) reject(state.finished ? `attempt ${attempt} already finished` : "no attempt in progress");
      return stamp(command.facts);
    }
    case "Advance": {
      if (!inProgress) reject(state.finished ? `attempt ${attempt} already finished` : "no attempt in progress");
      // The event recorded is the machine's: for a phase's report, the verdict its guards picked.
      const { snapshot: next, recorded } = step(state.snapshot, command.event);
      const reason = "reason" in recorded ? recorded.reason : null;
      const detail = "detail" in recorded && recorded.detail !== undefined ? recorded.detail : command.detail;
      const events: NewEvent[] = [
        ...stamp(command.facts ?? []),
        {
          type: "JobTransitioned",
          job_id: jobId,
          data: { attempt, from: jobStateOf(state.snapshot), to: jobStateOf(next), event: recorded.type, reason, ...(detail !== undefined ? { detail } : {}) },
        },
      ];
      if (isTerminal(next)) {
        const outcome = command.outcome ?? reject(`${command.event.type} ends the job, but no outcome was given`);
        const status = finishedStatusOf(jobStateOf(next) as TerminalJobState);
        // A job that did not end `done` says why in its feedback: the reason the machine recorded.
        const feedback = status === "ok" ? outcome.feedback : (next.context.reason ?? outcome.feedback);
        events.push({ type: "JobFinished", job_id: jobId, data: { attempt, status, ...outcome, feedback } });
      }
      return events;
    }
  }
}

/**
 * The job decider as one value (Emmett's shape, the stream id passed to `decide`): what the
 * recorder runs commands through and what `replay --verify` re-derives a log with.
 */
export interface Decider<State, Command, Event, Stored = Event> {
  readonly initialState: () => State;
  readonly decide: (streamId: string, state: State, command: Command) => Event[];
  readonly evolve: (state: State, event: Stored) => State;
}

export const jobDecider: Decider<JobDecisionState, JobCommand, NewEvent, EventBody> = { initialState: initialJobDecisionState, decide, evolve };
