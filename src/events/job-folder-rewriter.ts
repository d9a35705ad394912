/**
 * A job's folder as replay rebuilds it, by whichever thread writes it (the replaying thread or its
 * helper, replay-helper-thread.ts): the job's files rendered and written over what is there, then
 * whatever else its folder holds removed.
 */
import type { ProjectionWriter } from "./projection-writer.js";
import type { JobRenderContext } from "./projections/results-table.js";
import type { RunDirListing } from "./run-dir-listing.js";
import { removeJobStrays } from "./run-dir-strays.js";
import type { JobView } from "./run-state.js";

export class JobFolderRewriter {
  constructor(
    private readonly runDir: string,
    private readonly context: JobRenderContext,
    private readonly writer: ProjectionWriter,
    private readonly listing: RunDirListing,
  ) {}

  rewrite(job: JobView): void {
    this.writer.rewriteJob(this.context, job);
    removeJobStrays(this.runDir, job.job_id, this.listing);
    this.listing.forget(`jobs/${job.job_id}`);
  }
}
