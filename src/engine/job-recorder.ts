/**
 * Records one job's stream: each command goes through the decider, and what it decides is
 * appended at the stream version the recorder last saw (so a second writer, or a stale view of
 * the job, fails instead of adding a second outcome).
 *
 * When an append reports an error, the log itself says what happened: if the stream did advance
 * by the events sent, they were committed (the error came after the commit) and the recorder
 * goes on from there; otherwise nothing was committed and the job cannot be recorded any more.
 * Either way the decider never sees a stale state, so one attempt never gets two terminal events.
 */
import * as Data from "effect/Data";
import * as Either from "effect/Either";
import { jobStateOf } from "../../machines/job-transitions.js";
import type { JobMachineContext } from "../../machines/job.machine.js";
import type { Contents } from "../events/content-ref.js";
import { jobStream, type EventBody } from "../events/event-schema.js";
import { decide, foldJobStream, type JobCommand, type JobCommandRejected, type JobDecisionState } from "./job-decider.js";
import type { RunLog, AppendError } from "./run-services.js";

/** The log did not take the job's events (disk full, read-only, another writer): the attempt stops here. */
export class JobNotRecorded extends Data.TaggedError("JobNotRecorded")<{ readonly jobId: string; readonly cause: AppendError | Error }> {
  override get message(): string {
    return `job ${this.jobId}: events not recorded: ${this.cause.message}`;
  }
}

export type RecordError = JobCommandRejected | JobNotRecorded;

export const isRecordError = (error: unknown): error is RecordError => {
  const tag = (error as { _tag?: unknown } | null)?._tag;
  return tag === "JobNotRecorded" || tag === "JobCommandRejected";
};

export interface JobRecorder {
  readonly jobId: string;
  /** The latest attempt's number. */
  readonly attempt: () => number;
  /** The machine's state in the latest attempt. */
  readonly state: () => string;
  /** The machine's context in the latest attempt (what it recorded of training's verdict). */
  readonly context: () => JobMachineContext;
  /** Whether the latest attempt recorded its outcome. */
  readonly finished: () => boolean;
  /**
   * Decides and commits a command; throws the typed error (`RecordError`) when the log or the
   * decider refuses it. `contents`: texts the events refer to (prompts, replies), committed with them.
   */
  readonly executeNow: (command: JobCommand, contents?: Contents) => void;
}

/**
 * A recorder over the job's stream as it stands in the log. `history` (the job's events so far)
 * seeds the decider; the stream version is read from the log, the authority. The log is
 * synchronous, so a command is one step. Throws `JobNotRecorded` when the stream cannot be
 * recorded onto.
 */
export function openJobRecorder(log: RunLog["Type"], jobId: string, history: readonly EventBody[], onWarning: (text: string) => void): JobRecorder {
  try {
    return recorderOver(log, jobId, history, onWarning);
  } catch (error) {
    // A history the machine cannot fold (a doctored log) cannot be recorded onto either.
    throw error instanceof JobNotRecorded ? error : new JobNotRecorded({ jobId, cause: error as Error });
  }
}

function recorderOver(log: RunLog["Type"], jobId: string, history: readonly EventBody[], onWarning: (text: string) => void): JobRecorder {
  const stream = jobStream(jobId);
  let state: JobDecisionState = foldJobStream(history);
  const logVersion = log.streamVersion(stream);
  if (Either.isLeft(logVersion)) throw new JobNotRecorded({ jobId, cause: logVersion.left });
  if (logVersion.right !== state.version) {
    throw new JobNotRecorded({ jobId, cause: new Error(`the log holds ${logVersion.right} events of ${stream}, the run state ${state.version}`) });
  }

  const executeNow = (command: JobCommand, contents?: Contents): void => {
    const events = decide(jobId, state, command);
    // The state after them is what folding them gives, as it will be on replay.
    const after = foldJobStream(events, state);
    const appended = log.append(stream, state.version, events, contents);
    if (Either.isLeft(appended)) {
      // The log reported an error: whether the events got in decides what happened.
      const version = log.streamVersion(stream);
      if (Either.isLeft(version) || version.right !== state.version + events.length) throw new JobNotRecorded({ jobId, cause: appended.left });
      onWarning(`job ${jobId}: the log committed the events but then reported: ${appended.left.message}`);
    }
    state = after;
  };

  return {
    jobId,
    attempt: () => state.attempt,
    state: () => jobStateOf(state.snapshot),
    context: () => state.snapshot.context,
    finished: () => state.finished,
    executeNow,
  };
}
