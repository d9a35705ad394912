/**
 * Replay's engine: a run's every derived file rebuilt from its log (`trace-bench replay` is its
 * command, cli/replay.ts). The log is read once and driven through the same projector as a live
 * run's files (views/projector.ts), the events coming from SQLite instead of a commit.
 */
import { EventStore } from "./event-store.js";
import { jobStream, type StoredEvent } from "./event-schema.js";
import { JobFolderRewriter } from "./job-folder-rewriter.js";
import { MirrorWriter } from "./mirror-writer.js";
import { PROJECTIONS } from "./projection-subscriber.js";
import { ProjectionWriter } from "./projection-writer.js";
import type { JobRenderContext } from "./projections/results-table.js";
import { RunDirListing } from "./run-dir-listing.js";
import { findStrays, moveStraysAside } from "./run-dir-strays.js";
import { RunState } from "./run-state.js";

export interface ReplayOutcome {
  readonly state: RunState;
  /** What the directory held besides the log and its derived files, relative to it, sorted (a folder ends in `/`). */
  readonly strays: readonly string[];
  /** Where `prune` moved them (relative to the run directory), or null: left in place. */
  readonly movedTo: string | null;
}

/**
 * Reads the log once, in seq order, and settles each job the moment its last event is read: its
 * mirror checked, its files rendered and written, strays in its folder removed, its details
 * dropped. So memory holds the jobs being read, not the matrix (see docs/performance.md). Run-level files follow the last event.
 * `prune`: move what the log does not produce aside rather than leave it where it is. `store`:
 * the run's log, opened for writing (replay is a writer); closed when this returns.
 */
export async function replayLog(store: EventStore, runDir: string, prune = false): Promise<ReplayOutcome> {
  try {
    // Before any file changes: a replay cut short (a log that cannot be read to its end) must
    // leave the projections marked behind, so the next writer or replay rebuilds them.
    store.recordSubscriberPosition(PROJECTIONS, 0);
    const { context, startEvents } = latestStart(store);
    // Not copied: replay appends nothing.
    const lastPositions = store.streamEnds();
    // jobs/ is looked up a job at a time, never held whole (an entry per job).
    const listing = new RunDirListing(runDir, ["jobs"]);
    // Each projection is compared with the file the listing found, and written where it differs.
    const writer = new ProjectionWriter(runDir, false, listing);
    const rewriter = new JobFolderRewriter(context, writer, listing);
    const mirrors = new MirrorWriter(runDir, store).startCatchUp(lastPositions);
    const state = new RunState();
    const strays: string[] = [];
    store.scanLines((event, line) => {
      state.apply(event);
      mirrors.addLine(line, event);
      const jobId = event.job_id;
      if (jobId === null || lastPositions.get(event.stream) !== event.position) return;
      const job = state.jobs.get(jobId)!;
      for (const stray of rewriter.rewrite(job)) strays.push(stray);
      state.releaseDetail(jobId);
    }, startEvents);
    mirrors.finish();
    // Run-level files, and the files of jobs that never ran (no event settled them).
    writer.writeAll(state);
    // A job with events was settled at its last one (the positions are every stream's with events):
    // its folder was looked into then.
    const settled = { has: (jobId: string) => lastPositions.has(jobStream(jobId)) };
    strays.push(...findStrays(state.jobs, listing, settled));
    strays.sort();
    const movedTo = prune && strays.length > 0 ? moveStraysAside(runDir, strays) : null;
    store.recordSubscriberPosition(PROJECTIONS, state.lastSeq);
    return { state, strays, movedTo };
  } finally {
    store.close();
  }
}

/**
 * The run's latest start, for the job files' context and for the scan. A job's files show the
 * run's latest start (its LLM columns), which may come after the job's last event. Only the latest
 * start is kept, decoded once for the scan too; a job's files use none of its matrix, so the
 * context goes without it. Handed to the scan once and forgotten
 * there (and no variable of the replay holds it): its raw matrix (50,000 entries for a big run)
 * would otherwise live through the whole scan beside the views' shared copy.
 */
function latestStart(store: EventStore): { readonly context: JobRenderContext; readonly startEvents: ReadonlyMap<number, StoredEvent> } {
  const start = store.latestRunStarted();
  const context: JobRenderContext = { runId: start?.run_id ?? "", started: start?.type === "RunStarted" ? { ...start.data, matrix: [] } : null };
  return { context, startEvents: new TakenOnce<number, StoredEvent>(start === null ? [] : [[start.seq, start]]) };
}

/** A map whose entries are read once: `get` hands an entry over and forgets it. */
class TakenOnce<K, V> extends Map<K, V> {
  override get(key: K): V | undefined {
    const value = super.get(key);
    this.delete(key);
    return value;
  }
}
