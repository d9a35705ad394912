/**
 * A replay's helper thread (see replay-helper-thread.ts): writes the folder of each job it is
 * handed, as the replaying thread would, with a temp folder of its own; says when all are written
 * (and what else their folders hold) or why it could not write one.
 */
import { parentPort, workerData } from "node:worker_threads";
import { JobFolderRewriter } from "../events/job-folder-rewriter.js";
import { ProjectionWriter } from "../events/projection-writer.js";
import { HELPER_FAILED, HELPER_READY, type ReplayHelperReply, type ReplayHelperRequest, type ReplayHelperSetup } from "./replay-helper-thread.js";
import { RunDirListing } from "../events/run-dir-listing.js";

const { runDir, context, progress } = workerData as ReplayHelperSetup;
const port = parentPort!;
const send = (reply: ReplayHelperReply) => port.postMessage(reply);
const fail = (error: unknown) => {
  Atomics.store(progress, 0, HELPER_FAILED);
  const code = (error as { code?: unknown } | null)?.code;
  send({ type: "failed", message: error instanceof Error ? error.message : String(error), ...(typeof code === "string" ? { code } : {}) });
};

try {
  const listing = new RunDirListing(runDir);
  const writer = new ProjectionWriter(runDir, false, listing, "helper");
  const rewriter = new JobFolderRewriter(context, writer, listing);
  // What the job folders hold besides their files, handed back with the finish (replay reports them).
  const strays: string[] = [];
  port.on("message", (request: ReplayHelperRequest) => {
    if (Atomics.load(progress, 0) === HELPER_FAILED) return;
    try {
      if (request.type === "job") {
        for (const stray of rewriter.rewrite(request.job)) strays.push(stray);
        Atomics.add(progress, 1, 1);
      } else {
        writer.removeTempDir();
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
