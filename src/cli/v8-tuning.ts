/**
 * V8 tuned for trace-bench: its tiering, where it optimizes and how it favours memory for the run
 * verb, its heap growth for every verb.
 *
 * A run's jobs are short steps over many object shapes (events, payloads, machine snapshots, task
 * models), and optimizing them early cost more than it gained: with optimization off (`--no-opt`)
 * 500 trivial jobs ran faster than with V8's default, on two cores shared with the derived-files
 * thread of the time. Letting a function run about fifteen times longer before it is optimized
 * (interrupt budget 1 MiB; `node --v8-options` gives Node 20's default as 66 KiB) keeps the
 * optimizer for what stays hot: at one worker, 800 → 480 ms from RunStarted to the last
 * JobFinished, and no slower at 3,000 jobs (bench rows 1, 2 and 9);
 * after the jobs' code got leaner, 280 → 250 ms (medians of 6, alternated). The flag is
 * process-wide (every thread), so it is set before the verb's code is loaded. `replay` is not
 * tuned: it measured slower with it.
 */
import { setFlagsFromString } from "node:v8";

const RUN_INTERRUPT_BUDGET = 1 << 20;

export function tuneV8ForJobs(): void {
  setFlagsFromString(`--interrupt-budget=${RUN_INTERRUPT_BUDGET}`);
  // The job thread optimizes on its own rather than hand the work to V8's background threads (set
  // before it starts), which on two cores only competed with it and the derived-files thread
  // (derived files had a thread of their own then): peak RSS of 10,000 trivial jobs at 8 workers
  // 175–179 → 167–171 MiB, 1,000 jobs 122 → 121, the 500-job job phase unchanged at 1 and 8
  // workers (alternated ×8).
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

/**
 * The job thread, once its heap is set up (its young generation is sized as a thread starts),
 * asks V8 to favour memory for the rest of the process: `--optimize-for-size` lets a heap's old
 * generation grow by smaller steps between full collections (without it, `--trace-gc` showed the
 * job thread of a 10,000-job run grow by about 20 MB between them), and growth is capped at 10 %
 * of what survived the last one. A run holds the
 * writer's state and the derived files' state on that thread (about 40 MB of a 10,000-job run
 * at its end), so that cap is what sets its peak: 10,000 trivial jobs at 8 workers peaked at
 * 143–155 MiB without either flag, 137–144 with the first and 124–130 with both, and took about
 * as long (6.7–7.3 s against 6.9–8.3); the 500-job job phase did not change at 1 or at 8 workers
 * (alternated ×3). Set before the thread starts, `--optimize-for-size` also shrinks its young
 * generation, which cost about 30 % of a run's time.
 */
export function favourMemory(): void {
  setFlagsFromString("--optimize-for-size");
  setFlagsFromString("--heap-growing-percent=10");
}
