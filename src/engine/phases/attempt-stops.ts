/**
 * How a phase stops the attempt early: a machine event (`JobStop`), the job timeout, or the run's
 * interruption; and `phaseWork`, which runs a phase's promise under the attempt's signal.
 */
import type { JobMachineEvent } from "../../../machines/job.machine.js";
import type { AttemptAbort } from "../attempt-abort.js";

/** The attempt stops early: the machine event that says how. */
export class JobStop {
  constructor(
    readonly event: Extract<JobMachineEvent, { type: "FAIL" | "SKIP" }>,
    readonly detail?: string,
  ) {}
}
/** The job timeout passed while a phase ran. */
export class JobTimedOut {}
/** The run was interrupted while a phase ran. */
export class JobCancelled {}

/** Why the attempt's signal is aborted when the job timeout passes. */
export class DeadlinePassed extends Error {
  constructor() {
    super("job_timeout");
  }
}
/** Why the attempt's signal is aborted when the run is interrupted. */
export class RunCancelled extends Error {
  constructor() {
    super("cancelled");
  }
}

export const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
/** The stack of an unexpected error: for the job's stdout.log, never for a one-line reason. */
export const stackOf = (error: unknown) => (error instanceof Error && error.stack ? error.stack : String(error));
/** A reason is one line: results.csv and the console show it; the stack goes with it as detail. */
export const firstLine = (error: unknown) => errorText(error).split("\n")[0]!;
export const fail = (reason: string, detail?: string) => new JobStop({ type: "FAIL", reason }, detail);

/** The stop a phase ended by the attempt's signal stands for, if any: the deadline or the run's end. */
export function stopBySignal(signal: AbortSignal): JobTimedOut | JobCancelled | null {
  if (!signal.aborted) return null;
  return signal.reason instanceof DeadlinePassed ? new JobTimedOut() : signal.reason instanceof RunCancelled ? new JobCancelled() : null;
}

/**
 * Promise-returning work of a phase, ended by the attempt's signal; anything it throws stops the
 * job as an internal error (or as timed out, or cancelled, when the signal ended it).
 */
export async function phaseWork<A>(abort: AttemptAbort, work: () => Promise<A>, onError: (error: unknown) => unknown = (error) => fail(`internal_error: ${firstLine(error)}`, stackOf(error))): Promise<A> {
  try {
    return await abort.until(work());
  } catch (error) {
    throw stopBySignal(abort.signal) ?? onError(error);
  }
}
