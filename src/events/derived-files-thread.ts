/**
 * The writer's handle on the derived-files worker (derived-files-worker.ts): a subscriber whose
 * `handle` only tells the worker that the log moved, at most every 50 ms, so
 * committing stays the only work on a job's path. `finish` waits until every mirror and
 * projection reflects the log, and says which could not be brought level.
 */
import { Worker } from "node:worker_threads";
import type { Subscriber } from "./event-bus.js";
import type { StoredEvent } from "./event-schema.js";

export interface DerivedFilesSetup {
  readonly runDir: string;
  /** The log was empty when the writer opened it: nothing on disk is a projection yet. */
  readonly fresh: boolean;
  /** How often run-level files are refreshed while jobs finish (ms). */
  readonly refreshMs?: number;
}

export type DerivedFilesRequest = { readonly type: "moved" } | { readonly type: "finish"; readonly upTo: number };

/** The setup of a thread started ahead of its run: its first message. */
export interface DerivedFilesStart {
  readonly type: "setup";
  readonly setup: DerivedFilesSetup;
}

export type DerivedFilesReply =
  | { readonly type: "report"; readonly text: string }
  | { readonly type: "finished"; readonly behind: string[]; readonly projectionsAt: number | null }
  | { readonly type: "failed"; readonly message: string };

export interface DerivedFilesOutcome {
  /** Subscribers whose files are behind the log (`trace-bench replay` rebuilds them). */
  readonly behind: string[];
  /** The log position the projections now reflect in full (to record), or null. */
  readonly projectionsAt: number | null;
}

/** How long commits gather before the worker is told (the files trail the log by about this much). */
const NOTIFY_EVERY_MS = 50;
const WORKER_URL = new URL("./derived-files-worker.js", import.meta.url);
/**
 * The worker's young generation, in MiB. At 4 MiB it took about 40 MiB off the peak of a 1,000-job
 * run, but while the worker read the log 2,000 events at a time, each batch outlived its
 * scavenges and scavenging took a quarter of its time (a 3,000-job run 6.6 s instead of 4.9 at
 * 32 MiB). Read 250 at a time (`FOLLOW_BATCH`), 4 MiB is as fast as 16 was (alternated ×3,
 * 10,000 jobs at 8 workers: whole command 5.65–6.57 s against 5.70–5.98) and the peak is lower
 * (178–184 against 203–206 MiB).
 */
const YOUNG_GENERATION_MB = 4;
const ALL_BEHIND = ["mirrors", "projections"];

/** A worker thread whose setup comes as its first message (`DerivedFilesStart`). */
const startWorker = () => new Worker(WORKER_URL, { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });

/** A thread started ahead of its run, and whether it is still alive to take one. */
let prewarmed: { readonly worker: Worker; alive: boolean; readonly died: () => void } | null = null;

/**
 * Starts the next run's worker thread now, so that it boots while the run is planned (a thread
 * took about 0.4 s to boot here, which a small run otherwise waited for at its end: a one-job
 * run 0.75 → 0.64 s). It keeps nothing alive: a process that never opens a run exits as if it
 * had not been started.
 */
export function prewarmDerivedFilesThread(): void {
  if (prewarmed !== null) return;
  const worker = startWorker();
  const entry = { worker, alive: true, died: () => (entry.alive = false) };
  worker.unref();
  // Until a run takes it, a failure only means the run starts its own.
  worker.on("error", entry.died);
  worker.on("exit", entry.died);
  prewarmed = entry;
}

/** The thread started ahead if it is alive, else a new one, given `setup`. */
function claimWorker(setup: DerivedFilesSetup): Worker {
  const ready = prewarmed;
  prewarmed = null;
  let worker: Worker;
  if (ready !== null && ready.alive) {
    worker = ready.worker;
    worker.off("error", ready.died);
    worker.off("exit", ready.died);
    worker.ref();
  } else {
    if (ready !== null) void ready.worker.terminate();
    worker = startWorker();
  }
  worker.postMessage({ type: "setup", setup } satisfies DerivedFilesStart);
  return worker;
}

export class DerivedFilesThread implements Subscriber {
  readonly name = "derived-files";
  private readonly worker: Worker;
  private notifyPending = false;
  private failure: string | null = null;
  private outcome: Promise<DerivedFilesOutcome> | null = null;
  private settle: ((outcome: DerivedFilesOutcome) => void) | null = null;

  constructor(setup: DerivedFilesSetup, report: (text: string) => void) {
    this.worker = claimWorker(setup);
    this.worker.on("message", (reply: DerivedFilesReply) => {
      if (reply.type === "report") report(reply.text);
      else if (reply.type === "finished") this.settle?.({ behind: reply.behind, projectionsAt: reply.projectionsAt });
      else if (reply.type === "failed") this.fail(reply.message, report);
    });
    this.worker.on("error", (error) => this.fail(error.message, report));
    this.worker.on("exit", () => this.fail("the worker ended before the files were written", () => undefined));
  }

  handle(_events: readonly StoredEvent[]): void {
    if (this.notifyPending || this.failure !== null) return;
    this.notifyPending = true;
    // Batches of commits, not each one: the worker's fixed cost per look (a query, a refresh check)
    // would otherwise compete with the jobs for the CPU.
    setTimeout(() => {
      this.notifyPending = false;
      if (this.failure === null) this.worker.postMessage({ type: "moved" } satisfies DerivedFilesRequest);
    }, NOTIFY_EVERY_MS).unref();
  }

  catchUp(): void {
    this.handle([]);
  }

  /** Waits until the derived files reflect the log up to `upTo` (or the worker gave up). */
  finish(upTo: number): Promise<DerivedFilesOutcome> {
    this.outcome ??= new Promise<DerivedFilesOutcome>((resolve) => {
      this.settle = resolve;
      if (this.failure !== null) resolve({ behind: ALL_BEHIND, projectionsAt: null });
      else this.worker.postMessage({ type: "finish", upTo } satisfies DerivedFilesRequest);
    });
    return this.outcome;
  }

  /** Stops the worker (after `finish`, or on the way out of a failed run: its files are then behind). */
  async close(): Promise<void> {
    this.failure ??= "closed";
    await this.worker.terminate();
  }

  private fail(message: string, report: (text: string) => void): void {
    if (this.failure !== null) return;
    this.failure = message;
    report(`derived files: ${message} (the log is intact; rebuild them with 'trace-bench replay')`);
    this.settle?.({ behind: ALL_BEHIND, projectionsAt: null });
  }
}
