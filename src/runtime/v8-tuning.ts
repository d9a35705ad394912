/**
 * V8 tuned for trace-bench: its tiering, where it optimizes and how it favours memory for the run
 * verb, its heap growth for every verb.
 *
 * A run's jobs are short steps over many object shapes (events, payloads, machine snapshots, task
 * models), and optimizing them early cost more than it gained (even optimization off beat V8's
 * default). A larger interrupt budget lets a function run longer before it is optimized, which
 * keeps the optimizer for what stays hot (docs/performance.md: ledger, 67a8ac0 and 0103965).
 * The flag is process-wide (every thread), so it is set before the verb's code is loaded.
 * `replay` is not tuned: it measured slower with it.
 */
import { setFlagsFromString } from "node:v8";

const RUN_INTERRUPT_BUDGET = 1 << 20;

export function tuneV8ForJobs(): void {
  setFlagsFromString(`--interrupt-budget=${RUN_INTERRUPT_BUDGET}`);
  // The job thread optimizes on its own rather than hand the work to V8's background threads (set
  // before it starts), which on two cores only competed with it: less memory at the same speed
  // (docs/performance.md: ledger, 6c3fc06).
  setFlagsFromString("--no-concurrent-recompilation");
}

/**
 * After each full collection V8 lets a heap grow to up to four times what survived it before the
 * next, and a run allocates fast while keeping little, so its heap grows far past what it holds.
 * Capping the growth at 1.5 times (V8 reads the flag at every collection, so setting it at
 * start-up applies to every thread) takes much of that off a big run's and a replay's peak at the
 * same speed; tighter caps saved little more (docs/performance.md: ledger, a64e19c).
 */
export function boundHeapGrowth(): void {
  setFlagsFromString("--heap-growing-percent=50");
}

/**
 * The job thread, once its heap is set up (its young generation is sized as a thread starts),
 * asks V8 to favour memory for the rest of the process: `--optimize-for-size` lets a heap's old
 * generation grow by smaller steps between full collections, and growth is capped at 10 % of what
 * survived the last one. A run holds the writer's state and the derived files' state on that
 * thread, so that cap is what sets its peak; each flag lowered it, at about the same speed. Not
 * set before the thread starts: there `--optimize-for-size` also shrinks the young generation,
 * which cost a run time (docs/performance.md: ledger, d42e845).
 */
export function favourMemory(): void {
  setFlagsFromString("--optimize-for-size");
  setFlagsFromString("--heap-growing-percent=10");
}

/**
 * For verbs that run on the main thread (`replay`, `replay --verify`, `runs`, ...): V8 grows the
 * main thread's young generation to its largest semi-spaces while a verb allocates fast and keeps
 * little, and that space stays part of the resident set to the end. The main thread's maximum is
 * fixed when the process starts (only the command line sets it), but how far the semi-spaces grow
 * is read at each scavenge: a growth factor of 1 keeps them at their starting size, at about the
 * same CPU (docs/performance.md: ledger, c5c4f2d). Not for `run`: its job thread is sized on its own
 * (job-thread.ts), where a smaller young generation cost time.
 */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString("--semi-space-growth-factor=1");
}

/**
 * `replay` keeps each job's outcome until the run-level files are written at its end, so its peak
 * is the old generation it grows to: growth capped at 10 % of what survived the last full
 * collection, where every verb's 50 % let a 50,000-job replay's heap stand about 20 MB above what
 * it held (docs/performance.md: ledger).
 */
export function boundHeapGrowthTightly(): void {
  setFlagsFromString("--heap-growing-percent=10");
}
