/**
 * The replay helper thread's entry (replay-helper.ts): each job view it is handed, its folder
 * written as the replaying thread would, with a temp folder of its own.
 */
import { serveReplayHelper } from "../runtime/replay-helper-worker.js";
import { JobFolderRewriter } from "./job-folder-rewriter.js";
import { ProjectionWriter } from "./projection-writer.js";
import type { ReplayHelperContext } from "./replay-helper.js";
import { RunDirListing } from "./run-dir-listing.js";
import type { JobView } from "./run-state.js";

serveReplayHelper<JobView, ReplayHelperContext>(({ runDir, context }) => {
  const listing = new RunDirListing(runDir);
  const writer = new ProjectionWriter(runDir, false, listing, "helper");
  const rewriter = new JobFolderRewriter(context, writer, listing);
  return { write: (job) => rewriter.rewrite(job), finish: () => writer.removeTempDir() };
});
