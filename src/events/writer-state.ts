/**
 * The writer's own views (views/projector.ts `WRITER`: attempts, outcomes, LLM use) and their snapshot. Reopening a
 * finished run to decide what to resume folded its whole log each time (docs/performance.md:
 * ledger, c3808f2); the writer now saves its state at the end of each invocation with the log
 * position it reflects, and the next writer restores it and folds only what was committed after.
 * The snapshot is a cache in `events.db`: one written by another fold (another format) or
 * unreadable is ignored, and the log stays the only truth (`replay` and `replay --verify` never read it).
 */
import type { EventStore } from "./event-store.js";
import { RunState } from "./run-state.js";
import { typesOf, WRITER } from "./views/projector.js";
import { fromWriterSnapshot, writerSnapshot } from "./views/view-snapshot.js";

const SNAPSHOT = "writer-state";
/** The rows the writer's views fold. */
const WRITER_TYPES = typesOf(WRITER);
/** Changes whenever the writer's projections or their snapshot's shape do: a snapshot of another format is ignored. */
const FORMAT = `6:${WRITER_TYPES.join(",")}`;

/** The writer's views of the log `store` holds: its snapshot, if usable, and what came after. */
export function openWriterState(store: EventStore): RunState {
  const state = restored(store) ?? RunState.writer();
  state.skipTo(store.scan((event) => state.apply(event), WRITER_TYPES, state.lastSeq));
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
