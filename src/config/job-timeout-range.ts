/**
 * The job timeouts a run can keep: the engine arms a Node timer for the deadline, and a timer
 * longer than 2^31 − 1 ms fires at once (Node clamps it to 1 ms), so a longer timeout — or `.inf` —
 * would time every job out, or crash the run. Config and `--job-timeout` are held to this range.
 */
export const MAX_JOB_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/** The range as users are told it. */
export const JOB_TIMEOUT_RANGE = `a number of seconds from 0 to ${MAX_JOB_TIMEOUT_SECONDS} (about 24 days; 0 = none)`;

export const isJobTimeoutInRange = (seconds: number): boolean => Number.isFinite(seconds) && seconds >= 0 && seconds <= MAX_JOB_TIMEOUT_SECONDS;
