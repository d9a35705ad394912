/**
 * Records one attempt of one job: every fact becomes an event, and every phase change is asked
 * of the job machine first (Effect drives, XState decides). The terminal transition and
 * `JobFinished` commit together in one transaction: a job's work is done exactly when that
 * commits. After that the recorder is closed, so work still unwinding after a timeout or cancel
 * cannot add events to a finished attempt.
 */
import { initialJobSnapshot, jobStateOf, stepJob, type JobSnapshot } from "../../machines/job-transitions.js";
import type { JobMachineEvent } from "../../machines/job.machine.js";
import type { EventData, NewEvent } from "../events/event-schema.js";
import type { EventStore } from "../events/event-store.js";

export class RecorderClosed extends Error {
  override readonly name = "RecorderClosed";
}

export class JobRecorder {
  private snapshot: JobSnapshot = initialJobSnapshot();
  private closed = false;

  constructor(
    private readonly store: Pick<EventStore, "append">,
    readonly jobId: string,
    readonly attempt: number,
  ) {}

  get state(): string {
    return jobStateOf(this.snapshot);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Appends facts of the current phase (evaluations, iterations, LLM calls). */
  record(events: readonly NewEvent[]): void {
    if (this.closed) throw new RecorderClosed(`job ${this.jobId} attempt ${this.attempt} already finished`);
    this.store.append(events.map((e) => ({ ...e, job_id: this.jobId }) as NewEvent));
  }

  /** Steps the machine, then appends `before` facts and the transition in one transaction. */
  transition(event: JobMachineEvent, before: readonly NewEvent[] = [], deadline?: string | null): void {
    if (this.closed) throw new RecorderClosed(`job ${this.jobId} attempt ${this.attempt} already finished`);
    const from = this.state;
    const next = stepJob(this.snapshot, event);
    this.record([...before, this.transitionEvent(from, next, event, deadline)]);
    this.snapshot = next;
  }

  /** `before` facts, the terminal transition and `JobFinished`, committed together; closes the recorder. */
  finish(event: JobMachineEvent, finished: Omit<EventData<"JobFinished">, "attempt">, before: readonly NewEvent[] = []): void {
    if (this.closed) return;
    const from = this.state;
    const next = stepJob(this.snapshot, event);
    if (!next.hasTag("terminal")) throw new Error(`${event.type} does not end job ${this.jobId} (it leads to '${jobStateOf(next)}')`);
    this.record([...before, this.transitionEvent(from, next, event), { type: "JobFinished", data: { attempt: this.attempt, ...finished } }]);
    this.snapshot = next;
    this.closed = true;
  }

  private transitionEvent(from: string, next: JobSnapshot, event: JobMachineEvent, deadline?: string | null): NewEvent {
    const reason = "reason" in event ? event.reason : null;
    return {
      type: "JobTransitioned",
      data: { attempt: this.attempt, from, to: jobStateOf(next), event: event.type, reason, ...(deadline !== undefined ? { deadline } : {}) },
    };
  }
}
