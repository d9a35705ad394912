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
import * as Cause from "effect/Cause";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import { jobStateOf } from "../../machines/job-transitions.js";
import { jobStream, type EventBody, type NewEvent } from "../events/event-schema.js";
import { decideAndFold, foldJobStream, type JobCommand, type JobCommandRejected, type JobDecisionState } from "./job-decider.js";
import { RunLog, type AppendError } from "./run-services.js";

/** The log did not take the job's events (disk full, read-only, another writer): the attempt stops here. */
export class JobNotRecorded extends Data.TaggedError("JobNotRecorded")<{ readonly jobId: string; readonly cause: AppendError | Error }> {
  override get message(): string {
    return `job ${this.jobId}: events not recorded: ${this.cause.message}`;
  }
}

export type RecordError = JobCommandRejected | JobNotRecorded;

export interface JobRecorder {
  readonly jobId: string;
  /** The latest attempt's number. */
  readonly attempt: () => number;
  /** The machine's state in the latest attempt. */
  readonly state: () => string;
  /** Whether the latest attempt recorded its outcome. */
  readonly finished: () => boolean;
  readonly execute: (command: JobCommand) => Effect.Effect<void, RecordError>;
  /** `execute` for synchronous callers (a trainer's `emit`, LLM metering); throws the typed error. */
  readonly executeNow: (command: JobCommand) => void;
}

/**
 * A recorder over the job's stream as it stands in the log. `history` (the job's events so far)
 * seeds the decider; the stream version is read from the log, the authority.
 */
export const makeJobRecorder = (jobId: string, history: readonly EventBody[], onWarning: (text: string) => void) =>
  Effect.gen(function* () {
    const log = yield* RunLog;
    const stream = jobStream(jobId);
    let state: JobDecisionState = foldJobStream(history);
    const logVersion = yield* log.streamVersion(stream).pipe(Effect.mapError((cause) => new JobNotRecorded({ jobId, cause })));
    if (logVersion !== state.version) {
      return yield* Effect.fail(new JobNotRecorded({ jobId, cause: new Error(`the log holds ${logVersion} events of ${stream}, the run state ${state.version}`) }));
    }

    /** When the log reports an error, whether the events got in decides what happened. */
    const reconcile = (error: AppendError, events: NewEvent[], after: JobDecisionState): Effect.Effect<void, JobNotRecorded> =>
      log.streamVersion(stream).pipe(
        Effect.orElseSucceed(() => -1),
        Effect.flatMap((version) => {
          if (version !== state.version + events.length) return Effect.fail(new JobNotRecorded({ jobId, cause: error }));
          onWarning(`job ${jobId}: the log committed the events but then reported: ${error.message}`);
          state = after;
          return Effect.void;
        }),
      );

    const execute = (command: JobCommand): Effect.Effect<void, RecordError> =>
      Effect.suspend((): Effect.Effect<void, RecordError> => {
        let decided: { events: NewEvent[]; state: JobDecisionState };
        try {
          decided = decideAndFold(jobId, state, command);
        } catch (error) {
          return Effect.fail(error as JobCommandRejected);
        }
        const { events, state: after } = decided;
        return Effect.matchEffect(log.append(stream, state.version, events), {
          onFailure: (error) => reconcile(error, events, after),
          onSuccess: () => {
            state = after;
            return Effect.void;
          },
        });
      });

    const recorder: JobRecorder = {
      jobId,
      attempt: () => state.attempt,
      state: () => jobStateOf(state.snapshot),
      finished: () => state.finished,
      execute,
      executeNow: (command) => {
        const exit = Effect.runSyncExit(execute(command));
        if (exit._tag === "Failure") throw Cause.squash(exit.cause);
      },
    };
    return recorder;
  });
