/**
 * A job's folder as replay rebuilds it: the job's files rendered and written over what is there, and
 * whatever else its folder holds found (run-dir-strays.ts: replay keeps it or moves it aside).
 */
import type { ProjectionWriter } from "./projection-writer.js";
import type { JobRenderContext } from "./projections/results-table.js";
import type { RunDirListing } from "./run-dir-listing.js";
import { findJobStrays } from "./run-dir-strays.js";
import type { JobView } from "./run-state.js";

export class JobFolderRewriter {
  constructor(
    private readonly context: JobRenderContext,
    private readonly writer: ProjectionWriter,
    private readonly listing: RunDirListing,
  ) {}

  /** Writes the job's folder; returns what else it holds (paths relative to the run directory). */
  rewrite(job: JobView): string[] {
    this.writer.rewriteJob(this.context, job);
    const strays = findJobStrays(job.spec, this.listing);
    this.listing.forget(`jobs/${job.job_id}`);
    return strays;
  }
}
