/**
 * The job timeouts a run can keep: the engine arms a Node timer for the deadline, and Node fires a
 * timer past its longest delay at once, so a longer timeout (or `.inf`) would time every job out.
 */
export const MAX_JOB_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/** The range as users are told it. */
export const JOB_TIMEOUT_RANGE = `a number of seconds from 0 to ${MAX_JOB_TIMEOUT_SECONDS} (about 24 days; 0 = none)`;

export const isJobTimeoutInRange = (seconds: number): boolean => Number.isFinite(seconds) && seconds >= 0 && seconds <= MAX_JOB_TIMEOUT_SECONDS;
