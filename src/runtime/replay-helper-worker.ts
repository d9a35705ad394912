/**
 * A replay's helper thread, its side (see replay-helper-thread.ts): the entry module calls
 * `serveReplayHelper` with how to open the writer of a job's folder; each job it is handed is
 * written as the replaying thread would write it, and it says when all are written (and what else
 * their folders hold) or why it could not write one.
 */
import { parentPort, workerData } from "node:worker_threads";
import { HELPER_FAILED, HELPER_READY, type ReplayHelperReply, type ReplayHelperRequest, type ReplayHelperSetup } from "./replay-helper-thread.js";

/** What writes the jobs' folders on the helper thread. */
export interface ReplayJobWriter<Job> {
  /** Writes `job`'s folder; returns what it holds besides its files (paths relative to the run directory). */
  write(job: Job): Iterable<string>;
  /** Every job is written: clean up (its temp folder). */
  finish(): void;
}

/** Serves the replaying thread on this (helper) thread, with the writer `open` makes of the setup it was started with. */
export function serveReplayHelper<Job, Setup>(open: (setup: Setup) => ReplayJobWriter<Job>): void {
  const { setup, progress } = workerData as ReplayHelperSetup<Setup>;
  const port = parentPort!;
  const send = (reply: ReplayHelperReply) => port.postMessage(reply);
  const fail = (error: unknown) => {
    Atomics.store(progress, 0, HELPER_FAILED);
    const code = (error as { code?: unknown } | null)?.code;
    send({ type: "failed", message: error instanceof Error ? error.message : String(error), ...(typeof code === "string" ? { code } : {}) });
  };

  try {
    const writer = open(setup);
    // What the job folders hold besides their files, handed back with the finish (replay reports them).
    const strays: string[] = [];
    port.on("message", (request: ReplayHelperRequest<Job>) => {
      if (Atomics.load(progress, 0) === HELPER_FAILED) return;
      try {
        if (request.type === "job") {
          for (const stray of writer.write(request.job)) strays.push(stray);
          Atomics.add(progress, 1, 1);
        } else {
          writer.finish();
          send({ type: "finished", strays });
        }
      } catch (error) {
        fail(error);
      }
    });
    Atomics.store(progress, 0, HELPER_READY);
  } catch (error) {
    fail(error);
  }
}
