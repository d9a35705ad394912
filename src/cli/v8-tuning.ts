/**
 * V8's tiering, tuned for the run verb. A run's jobs are short steps over many object shapes
 * (events, payloads, machine snapshots, task models): V8's optimizing compiler kicked in within the
 * first jobs and then deoptimized and recompiled as new shapes came, on the same two cores as the
 * jobs and the derived-files thread. Letting a function run eight times longer before it is
 * optimized (interrupt budget 1 MiB, V8's default 132 KiB) measured, on 500 trivial jobs at one
 * worker, 800 → 480 ms from RunStarted to the last JobFinished, and no slower at 3,000 jobs (bench
 * rows 1, 2 and 9). Process-wide (every thread), so it is set before the verb's code is loaded.
 * `replay` is not tuned: its rendering loops are hot from the start and measured slower with it.
 */
import { setFlagsFromString } from "node:v8";

export const RUN_INTERRUPT_BUDGET = 1 << 20;

export function tuneV8ForJobs(): void {
  setFlagsFromString(`--interrupt-budget=${RUN_INTERRUPT_BUDGET}`);
}
