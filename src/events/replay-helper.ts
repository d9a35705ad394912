/**
 * Replay's helper thread, as replay uses it: the thread (src/runtime/replay-helper-thread.ts)
 * started on replay-helper-entry.ts, handed job views, writing their folders as replay would.
 */
import { ReplayHelperThread } from "../runtime/replay-helper-thread.js";
import type { JobRenderContext } from "./projections/results-table.js";
import type { JobView } from "./run-state.js";

/** What the helper's entry is started with. */
export interface ReplayHelperContext {
  readonly runDir: string;
  readonly context: JobRenderContext;
}

export type ReplayHelper = ReplayHelperThread<JobView>;

const ENTRY_URL = new URL("./replay-helper-entry.js", import.meta.url);

/** Starts a helper that writes the folders of the jobs of `runDir` it is handed. */
export const startReplayHelper = (runDir: string, context: JobRenderContext): ReplayHelper =>
  new ReplayHelperThread<JobView>(ENTRY_URL, { runDir, context } satisfies ReplayHelperContext);
