/**
 * The run's one view store as a writer opens it, and its snapshot. The writer folds each commit
 * into it and the derived files render from it (run-session.ts). Opened, every job is released
 * (views/view-memory.ts): only what plans, budgets and the run-level reports read is folded
 * (views/projector.ts `WRITER`), and a job whose own files must be rendered again gets its details
 * back from its stream. Reopening a finished run to decide what to resume folded its whole log
 * each time (docs/performance.md: ledger, c3808f2); the writer saves the views at the end of each
 * invocation with the log position they reflect, and the next writer restores them and folds only
 * what was committed after. The snapshot is a cache in `events.db`: one written by another fold
 * (another format) or unreadable is ignored, and the log stays the only truth (`replay` and
 * `replay --verify` never read it).
 */
import type { EventStore } from "./event-store.js";
import { RunState } from "./run-state.js";
import { project, typesOf, WRITER } from "./views/projector.js";
import { fromWriterSnapshot, writerSnapshot } from "./views/view-snapshot.js";

const SNAPSHOT = "writer-state";
/** The rows a released view folds. */
const WRITER_TYPES = typesOf(WRITER);
/** Changes whenever the writer's projections or their snapshot's shape do: a snapshot of another format is ignored. */
const FORMAT = `7:${WRITER_TYPES.join(",")}`;

/** The views of the log `store` holds, every job released: its snapshot, if usable, and what came after. */
export function openWriterState(store: EventStore): RunState {
  const state = restored(store) ?? new RunState();
  state.skipTo(store.scan((event) => project(state, WRITER, event), WRITER_TYPES, state.lastSeq));
  state.releaseAll();
  return state;
}

function restored(store: EventStore): RunState | null {
  const saved = store.snapshot(SNAPSHOT);
  if (saved === null || saved.format !== FORMAT || saved.seq > store.lastSeq()) return null;
  try {
    const state = fromWriterSnapshot(saved.data);
    return state.lastSeq === saved.seq ? state : null;
  } catch {
    return null;
  }
}

/**
 * A usable snapshot fewer than this many events behind the log is kept: folding them costs the
 * next writer little, while writing a big finished run's snapshot again was a noticeable part of
 * every re-run that found nothing to do (docs/performance.md: ledger, c8b9000).
 */
const KEEP_SNAPSHOT_WITHIN = 1_000;

/** Saves `state` (level with the whole committed log) for the next writer, unless the saved one is nearly as good. */
export function saveWriterState(store: EventStore, state: RunState): void {
  const saved = store.snapshotPosition(SNAPSHOT);
  if (saved !== null && saved.format === FORMAT && saved.seq <= state.lastSeq && state.lastSeq - saved.seq < KEEP_SNAPSHOT_WITHIN) return;
  store.saveSnapshot(SNAPSHOT, state.lastSeq, FORMAT, writerSnapshot(state));
}
