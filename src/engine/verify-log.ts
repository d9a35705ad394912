/**
 * `replay --verify`: re-derives every job stream of a log through the job decider (and so the job
 * machine) and reports each place where the log holds something the decider would not have
 * produced: a transition the machine refuses or lands elsewhere, a status that is not the final
 * state's, a second terminal event, events after a job finished, attempts out of order.
 */
import { isDeepStrictEqual } from "node:util";
import { JOB_FACT_TYPES, type NewEvent, type StoredEvent } from "../events/event-schema.js";
import { streamGapText } from "../events/log-checks.js";
import { decide, evolve, initialJobDecisionState, machineEventOf, type JobCommand, type JobDecisionState, type JobFact, type JobOutcome } from "./job-decider.js";

export interface LogProblem {
  readonly seq: number;
  readonly jobId: string | null;
  readonly problem: string;
}

const FACT_TYPES: ReadonlySet<string> = new Set(JOB_FACT_TYPES);

/** The command that should have produced the events starting at `events[i]`, and how many it covers. */
function commandAt(events: readonly StoredEvent[], i: number): { command: JobCommand; covers: number } | string {
  const event = events[i]!;
  const next = events[i + 1];
  if (event.type === "JobQueued") {
    if (next?.type !== "JobTransitioned" || next.data.event !== "START") return "JobQueued is not followed by the START transition";
    return { command: { type: "StartAttempt", attempt: event.data.attempt, invocation: event.data.invocation, deadline: next.data.deadline ?? null }, covers: 2 };
  }
  if (FACT_TYPES.has(event.type)) return { command: { type: "RecordFacts", facts: [{ type: event.type, data: event.data } as JobFact] }, covers: 1 };
  if (event.type === "JobTransitioned") {
    const finished = next?.type === "JobFinished" ? next : undefined;
    const outcome: JobOutcome | undefined = finished === undefined ? undefined : (({ attempt: _a, status: _s, ...rest }) => rest)(finished.data);
    const detail = event.data.detail;
    return { command: { type: "Advance", event: machineEventOf(event.data), ...(outcome ? { outcome } : {}), ...(detail !== undefined ? { detail } : {}) }, covers: finished ? 2 : 1 };
  }
  return `${event.type} where no command produces it`;
}

const sameEvent = (a: NewEvent, b: StoredEvent) => a.type === b.type && isDeepStrictEqual(a.data, b.data);

function verifyJobStream(jobId: string, events: readonly StoredEvent[]): LogProblem[] {
  const problems: LogProblem[] = [];
  let state: JobDecisionState = initialJobDecisionState();
  for (let i = 0; i < events.length; ) {
    const at = events[i]!;
    const found = commandAt(events, i);
    if (typeof found === "string") {
      problems.push({ seq: at.seq, jobId, problem: found });
      return problems; // the stream cannot be followed past a broken place
    }
    let expected: NewEvent[];
    try {
      expected = decide(jobId, state, found.command);
    } catch (error) {
      problems.push({ seq: at.seq, jobId, problem: error instanceof Error ? error.message : String(error) });
      return problems;
    }
    const actual = events.slice(i, i + expected.length);
    const mismatch = expected.findIndex((e, k) => actual[k] === undefined || !sameEvent(e, actual[k]!));
    if (mismatch >= 0) {
      const got = actual[mismatch];
      const want = expected[mismatch]!;
      problems.push({
        seq: got?.seq ?? at.seq,
        jobId,
        problem: got === undefined ? `the log ends where the machine records ${want.type}` : `the machine records ${want.type} ${JSON.stringify(want.data).slice(0, 160)}, the log has ${got.type} ${JSON.stringify(got.data).slice(0, 160)}`,
      });
      return problems;
    }
    for (const event of actual) state = evolve(state, event);
    i += expected.length;
  }
  return problems;
}

/**
 * Verifies a log read in seq order, one event at a time: each job stream is checked through the
 * machine as soon as its last event (`lastPositions`) is read, and dropped then, so it holds the
 * jobs being read, not the log (memory flat in the log's size; figures in docs/performance.md).
 */
export class LogVerifier {
  private readonly problems: LogProblem[] = [];
  private readonly lastPosition = new Map<string, number>();
  /** A stream with a hole cannot be followed through the machine: its hole is its one problem. */
  private readonly holed = new Set<string>();
  /** Events of the job streams not yet read to their end. */
  private readonly open = new Map<string, StoredEvent[]>();
  /** Job streams read to their end. */
  jobsChecked = 0;

  /** `lastOfStream`: the event is its stream's last (its job is checked now; otherwise at `finish`). */
  add(event: StoredEvent, lastOfStream = false): void {
    const expectedPosition = (this.lastPosition.get(event.stream) ?? 0) + 1;
    if (event.position !== expectedPosition) {
      this.problems.push({
        seq: event.seq,
        jobId: event.job_id,
        problem:
          event.position > expectedPosition
            ? streamGapText({ stream: event.stream, missing: expectedPosition, next: event.position })
            : `stream ${event.stream} position ${event.position}, expected ${expectedPosition}`,
      });
      this.holed.add(event.stream);
    }
    this.lastPosition.set(event.stream, event.position);
    if (event.job_id === null) return;
    let list = this.open.get(event.job_id);
    if (list === undefined) this.open.set(event.job_id, (list = []));
    list.push(event);
    if (lastOfStream) this.close(event.job_id, list);
  }

  /** Every problem found (empty when the machine would have produced all of it), in seq order. */
  finish(): LogProblem[] {
    for (const [jobId, list] of this.open) this.close(jobId, list);
    return this.problems.sort((a, b) => a.seq - b.seq);
  }

  private close(jobId: string, list: readonly StoredEvent[]): void {
    this.open.delete(jobId);
    this.jobsChecked += 1;
    // Nothing of the stream follows its last event: its position is no longer needed.
    this.lastPosition.delete(list[0]!.stream);
    if (!this.holed.has(list[0]!.stream)) this.problems.push(...verifyJobStream(jobId, list));
  }
}

/** Every problem in the log's job streams (empty when the machine would have produced all of it). */
export function verifyLog(events: readonly StoredEvent[]): LogProblem[] {
  const verifier = new LogVerifier();
  for (const event of events) verifier.add(event);
  return verifier.finish();
}
