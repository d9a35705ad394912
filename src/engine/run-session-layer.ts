/**
 * A run directory opened for writing, as scoped Effect services: the log (the writer lock, released
 * however the invocation ends), the follower that keeps the mirrors and projections (closed before
 * the log), the session over the two, and the `RunLog` jobs append through. Building the layer
 * acquires them in that order; closing its scope releases them in reverse.
 *
 * The follower is acquired through `RunSession.follower` alone (a thin adapter over `DerivedFiles`):
 * when the projections' start/stop surface changes, that is the one place to follow it.
 */
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import * as Layer from "effect/Layer";
import type { DerivedFiles } from "../events/derived-files.js";
import { eventsDbPath } from "../events/log-database.js";
import { logOpenError, logReadError, appendError } from "./log-errors.js";
import { RunLog } from "./run-services.js";
import { RunSession, type OpenedRunLog, type SessionOptions } from "./run-session.js";

/** The run's log and writer state, held open (and locked) for the scope. */
export class OpenRunLog extends Context.Tag("trace-bench/OpenRunLog")<OpenRunLog, OpenedRunLog>() {}

/** The follower of the log: mirrors and projections, off the jobs' path. */
export class DerivedFilesFollower extends Context.Tag("trace-bench/DerivedFilesFollower")<DerivedFilesFollower, DerivedFiles>() {}

/** The session jobs and the invocation write through. */
export class ActiveRunSession extends Context.Tag("trace-bench/ActiveRunSession")<ActiveRunSession, RunSession>() {}

export interface RunSessionSettings extends SessionOptions {
  readonly runDir: string;
  readonly runId: string;
}

const openRunLog = (settings: RunSessionSettings) =>
  Layer.scoped(
    OpenRunLog,
    Effect.acquireRelease(
      Effect.try({ try: () => RunSession.openLog(settings.runDir, settings.runId, settings), catch: (error) => error }).pipe(Effect.catchAll(logOpenError)),
      (log) => Effect.sync(() => log.store.close()),
    ),
  );

const follower = (settings: RunSessionSettings) =>
  Layer.scoped(
    DerivedFilesFollower,
    Effect.flatMap(OpenRunLog, (log) =>
      Effect.acquireRelease(
        Effect.sync(() => RunSession.follower(log, settings)),
        (derived) => Effect.sync(() => derived.close()),
      ),
    ),
  );

const session = (settings: RunSessionSettings) =>
  Layer.effect(
    ActiveRunSession,
    Effect.zipWith(OpenRunLog, DerivedFilesFollower, (log, derived) => RunSession.attach(log, derived, settings)),
  );

/** The jobs' view of the session: each call's error is one of the log's typed errors. */
export const runLogOf = (s: RunSession): RunLog["Type"] => {
  const path = eventsDbPath(s.runDir);
  const asAppendError = appendError(path);
  const asReadError = logReadError(path);
  return RunLog.of({
    append: (stream, expected, events, contents) => Either.try({ try: () => s.append(stream, expected, events, contents), catch: asAppendError }),
    streamVersion: (stream) => Either.try({ try: () => s.streamVersion(stream), catch: asReadError }),
    contents: (refs) => Either.try({ try: () => s.contents(refs), catch: asReadError }),
  });
};

/** The session and its parts, opened for the scope the layer is built in. */
export function runSessionLayer(settings: RunSessionSettings): Layer.Layer<ActiveRunSession | OpenRunLog, Effect.Effect.Error<ReturnType<typeof logOpenError>>> {
  const log = openRunLog(settings);
  return Layer.provideMerge(session(settings), Layer.provideMerge(follower(settings), log));
}
