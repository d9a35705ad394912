/**
 * Whether the dashboard may ask for one job to be cancelled: the run has a live `run` process
 * taking requests (its writer lock; no pid is signalled, so none needs verifying), and the job is
 * under way in it (building, training or evaluating). Null when it may, else why not.
 */
import type { JobState } from "./api-types.js";
import type { WatchedRun } from "./watched-run.js";

const UNDER_WAY = new Set(["building", "training", "evaluating"]);

export function jobCancellable(run: WatchedRun, job: JobState): string | null {
  const writer = run.liveWriter;
  if (writer === null || !writer.command.includes(" run")) return `run ${run.relDir} is not running`;
  if (!UNDER_WAY.has(job.state)) return `it is ${job.state}, not running (only a job under way can be cancelled)`;
  return null;
}
