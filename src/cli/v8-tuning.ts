/**
 * V8 tuned for trace-bench: its tiering and where it optimizes for the run verb, its heap growth
 * for every verb.
 *
 * A run's jobs are short steps over many object shapes (events, payloads, machine snapshots, task
 * models), and optimizing them early cost more than it gained: with optimization off (`--no-opt`)
 * 500 trivial jobs ran faster than with V8's default, on the same two cores as the derived-files
 * thread. Letting a function run about eight times longer before it is optimized (interrupt budget
 * 1 MiB, V8's default 132 KiB) keeps the optimizer for what stays hot: at one worker, 800 → 480 ms
 * from RunStarted to the last JobFinished, and no slower at 3,000 jobs (bench rows 1, 2 and 9);
 * after the jobs' code got leaner, 280 → 250 ms (medians of 6, alternated). The flag is
 * process-wide (every thread), so it is set before the verb's code is loaded. `replay` is not
 * tuned: it measured slower with it.
 */
import { setFlagsFromString } from "node:v8";

const RUN_INTERRUPT_BUDGET = 1 << 20;

export function tuneV8ForJobs(): void {
  setFlagsFromString(`--interrupt-budget=${RUN_INTERRUPT_BUDGET}`);
  // The job thread and the derived-files thread optimize on their own threads rather than hand
  // the work to V8's background threads (set before either thread starts), which on two cores
  // only competed with them: peak RSS of 10,000 trivial jobs at 8 workers 175–179 → 167–171 MiB,
  // 1,000 jobs 122 → 121, the 500-job job phase unchanged at 1 and 8 workers (alternated ×8).
  setFlagsFromString("--no-concurrent-recompilation");
}

/**
 * After each full collection V8 lets a heap grow to up to four times what survived it before the
 * next, and a run allocates fast while keeping little (a 10,000-job run: about 30 MB live in the
 * writer's thread, whose heap grew to 150 MB). Capping the growth at 1.5 times (V8 reads the flag
 * at every collection, so setting it at start-up applies to every thread): peak RSS of a
 * 10,000-job run 398–426 → 276–300 MiB and of its replay 222–254 → 194–198 MiB, with the 500-job,
 * 8-worker job phase unchanged (alternated medians of 6: 277 and 276 ms); 25 % and 10 % saved
 * little more (about 280 MiB).
 */
export function boundHeapGrowth(): void {
  setFlagsFromString("--heap-growing-percent=50");
}
