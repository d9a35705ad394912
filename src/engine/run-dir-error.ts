/**
 * The runs dir or run id cannot be used as given. A file of its own so that `validate`, which
 * throws it too, does not load the run planner and the event store behind it.
 */
import * as Data from "effect/Data";

export class RunDirError extends Data.TaggedError("RunDirError")<{ readonly problem: string }> {
  override get message(): string {
    return this.problem;
  }
}
