/**
 * The run log's synchronous calls throw; these sort what they throw into the typed errors each call
 * is known to fail with. Opening: anything else is a bug in this program, not the log's answer,
 * and stays a defect. Writing and reading while jobs run: an error the store did not type (an
 * SQLite code it has no sentence for) is still the log failing, so it becomes an
 * `EventLogWriteError` with its own message (the run then stops as for a full disk), never a cast.
 */
import * as Effect from "effect/Effect";
import { EventLogCorruptError, EventLogLostError, EventLogWriteError, InvalidAppendError, RunLockedError, WrongExpectedVersionError } from "../events/event-log-errors.js";
import type { AppendError } from "./run-services.js";

/** What opening a run's log for writing fails with. */
export type LogOpenError = RunLockedError | EventLogWriteError | EventLogCorruptError | EventLogLostError;

/** What reading the log fails with. */
export type LogReadError = EventLogWriteError | EventLogCorruptError;

const isLogReadError = (error: unknown): error is LogReadError => error instanceof EventLogWriteError || error instanceof EventLogCorruptError;

const isAppendError = (error: unknown): error is AppendError => error instanceof WrongExpectedVersionError || error instanceof EventLogWriteError || error instanceof InvalidAppendError;

const isLogOpenError = (error: unknown): error is LogOpenError => error instanceof RunLockedError || error instanceof EventLogLostError || isLogReadError(error);

/** For `Effect.catchAll` after a log open: the typed failure, or a defect. */
export const logOpenError = (error: unknown): Effect.Effect<never, LogOpenError> => (isLogOpenError(error) ? Effect.fail(error) : Effect.die(error));

/** For `Effect.catchAll` after an append: the typed failure, or a defect. */
export const appendFailure = (error: unknown): Effect.Effect<never, AppendError> => (isAppendError(error) ? Effect.fail(error) : Effect.die(error));

/** For `Effect.catchAll` after a read: the typed failure, or a defect. */
export const logReadFailure = (error: unknown): Effect.Effect<never, LogReadError> => (isLogReadError(error) ? Effect.fail(error) : Effect.die(error));

/** An error the store did not type, as the log failing at `path`. */
function untypedLogError(error: unknown, path: string): EventLogWriteError {
  const code = (error as { code?: unknown } | null)?.code;
  return new EventLogWriteError({ path, code: typeof code === "string" ? code : "UNKNOWN", problem: error instanceof Error ? error.message : String(error) });
}

/** For `Either.try`'s `catch` on the log at `path`: an append's typed error. */
export const appendError = (path: string) => (error: unknown): AppendError => (isAppendError(error) ? error : untypedLogError(error, path));

/** For `Either.try`'s `catch` on the log at `path`: a read's typed error. */
export const logReadError = (path: string) => (error: unknown): LogReadError => (isLogReadError(error) ? error : untypedLogError(error, path));
