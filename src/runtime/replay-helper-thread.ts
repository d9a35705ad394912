/**
 * A second thread for replay (replay-helper-worker.ts): while the replaying thread reads and folds
 * the log, the helper writes the folders of the jobs it is handed. Writing a job's folder (11 files
 * and 3 folders listed, each file rendered and compared with the disk, written to a temp file and
 * renamed where it differs) is most of a replay's time and mostly system calls, which two threads
 * make side by side. Jobs are handed over only while the helper keeps up (its progress is shared
 * memory: the replaying thread reads the log without yielding), so a helper that starts late or
 * runs slow only takes fewer of them. Started only when asked for: its isolate costs more memory
 * than it saves time on a busy machine (docs/performance.md: ledger).
 *
 * The port: the thread runs the entry module it is given (one that calls `serveReplayHelper` with
 * the writer of a job's folder), with the setup it is given, and takes jobs of any cloneable type;
 * so this folder imports nothing of the events and their projections.
 */
import { Worker } from "node:worker_threads";

/** What the helper's entry is started with (`workerData`). */
export interface ReplayHelperSetup<Setup> {
  readonly setup: Setup;
  /** [state (0 starting, 1 ready, -1 failed), jobs written]. */
  readonly progress: Int32Array;
}

export type ReplayHelperRequest<Job> = { readonly type: "job"; readonly job: Job } | { readonly type: "finish" };
/** `code`: the system error's (ENOSPC, ENOTDIR, ...), when a file could not be written. */
export type ReplayHelperReply = { readonly type: "finished"; readonly strays: readonly string[] } | { readonly type: "failed"; readonly message: string; readonly code?: string };

export const HELPER_STARTING = 0;
export const HELPER_READY = 1;
export const HELPER_FAILED = -1;

/** Jobs handed over and not yet written, at most: the helper's backlog, held in its memory. */
const MAX_BACKLOG = 32;
/** Its young generation, in MiB: below V8's default, a big replay peaks lower (docs/performance.md: ledger, af5c15a). */
const YOUNG_GENERATION_MB = 16;

export class ReplayHelperThread<Job> {
  private readonly worker: Worker;
  private readonly progress = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  private handed = 0;
  private failure: { readonly message: string; readonly code?: string } | null = null;
  private finished: (() => void) | null = null;
  /** What the folders it wrote hold besides their files (run-dir-strays.ts), once it finished. */
  private strays: readonly string[] = [];

  /** Starts `entry` (a module that calls `serveReplayHelper`) on a thread, with `setup` copied to it. */
  constructor(entry: URL, setup: unknown) {
    this.worker = new Worker(entry, { workerData: { setup, progress: this.progress } satisfies ReplayHelperSetup<unknown>, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    this.worker.on("message", (reply: ReplayHelperReply) => {
      if (reply.type !== "finished") return this.fail(reply.message, reply.code);
      this.strays = reply.strays;
      this.finished?.();
    });
    this.worker.on("error", (error) => this.fail(error.message));
    this.worker.on("exit", (code) => this.fail(`it ended (exit code ${code})`));
  }

  /** Resolves once the helper takes jobs (or has failed: it then takes none). */
  async ready(): Promise<void> {
    while (Atomics.load(this.progress, 0) === HELPER_STARTING && this.failure === null) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  /** Hands `job` to the helper if it is ready and keeping up; false: the caller writes it. */
  offer(job: Job): boolean {
    if (Atomics.load(this.progress, 0) !== HELPER_READY || this.handed - Atomics.load(this.progress, 1) >= MAX_BACKLOG) return false;
    this.worker.postMessage({ type: "job", job } satisfies ReplayHelperRequest<Job>);
    this.handed += 1;
    return true;
  }

  /**
   * Waits until every job handed over is written. A helper that failed rejects it if it was
   * handed any job (its folder may be half written); one that never took a job cost nothing.
   * Returns what the folders it wrote hold besides their files (paths relative to the run directory).
   */
  async finish(): Promise<readonly string[]> {
    if (this.handed === 0) return [];
    await new Promise<void>((resolve, reject) => {
      const settle = () => (this.failure === null ? resolve() : reject(helperError(this.failure)));
      if (this.failure !== null) return settle();
      this.finished = settle;
      this.worker.postMessage({ type: "finish" } satisfies ReplayHelperRequest<Job>);
    });
    return this.strays;
  }

  async stop(): Promise<void> {
    this.failure ??= { message: "stopped" };
    await this.worker.terminate();
  }

  private fail(message: string, code?: string): void {
    this.failure ??= { message, code };
    this.finished?.();
  }
}

/** The helper's failure as this thread's error, with the system error's code (what the CLI explains). */
function helperError(failure: { readonly message: string; readonly code?: string }): Error {
  return Object.assign(new Error(`replay helper thread: ${failure.message}`), failure.code === undefined ? {} : { code: failure.code });
}
