/**
 * How many times a test repeats a trial whose defect shows only some of the time or at some
 * instants (a race given several chances, a kill aimed at several points of a run). `npm test`
 * runs the quick count: each trial can still fail for its defect, and the suite stays within
 * minutes on a 2-core machine. TRACE_BENCH_TEST_THOROUGH=1 (`npm run test:thorough`) runs the
 * full count the test was written with: before a release, or nightly in CI.
 */
export const THOROUGH = process.env.TRACE_BENCH_TEST_THOROUGH === "1";

export function repeats(full: number, quick: number): number {
  return THOROUGH ? full : Math.min(full, quick);
}
