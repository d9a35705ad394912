/**
 * V8's tiering, tuned for the run verb. A run's jobs are short steps over many object shapes
 * (events, payloads, machine snapshots, task models), and optimizing them early cost more than it
 * gained: with optimization off (`--no-opt`) 500 trivial jobs ran faster than with V8's default,
 * on the same two cores as the derived-files thread. Letting a function run about eight times
 * longer before it is optimized (interrupt budget 1 MiB, V8's default 132 KiB) keeps the
 * optimizer for what stays hot: at one worker, 800 → 480 ms from RunStarted to the last
 * JobFinished, and no slower at 3,000 jobs (bench rows 1, 2 and 9); after the jobs' code got
 * leaner, 280 → 250 ms (medians of 6, alternated). The flag is process-wide
 * (every thread), so it is set before the verb's code is loaded. `replay` is not tuned: it
 * measured slower with it.
 */
import { setFlagsFromString } from "node:v8";

const RUN_INTERRUPT_BUDGET = 1 << 20;

export function tuneV8ForJobs(): void {
  setFlagsFromString(`--interrupt-budget=${RUN_INTERRUPT_BUDGET}`);
}
