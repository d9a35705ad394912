/**
 * Where a job would not run as in the pinned Python harness (Trace-Bench d1469af on OpenTrace
 * `experimental` acb97198): kwargs the harness silently ignores that trace-bench honours, and
 * trainer names it resolves to another algorithm. `validate` prints each as a note; the job runs
 * as configured, but its results are not comparable with the harness's.
 */
import type { Kwargs } from "../config/kwargs.js";

/** Why the harness ignores these kwargs of a trainer, by kwarg (parity scenarios ps-options, ucbsearch, ps-presets). */
const IGNORED_BY_HARNESS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  PrioritySearch: {
    batch_size: "the harness renames it train_batch_size, which PrioritySearch does not know, and runs batch 1",
    train_batch_size: "PrioritySearch does not know it and runs batch 1",
  },
  UCBSearchAlgorithm: {
    max_buffer_size: "it is a constructor argument there, so given as a param it is ignored (buffer 10)",
    ucb_exploration_factor: "it is a constructor argument there, so given as a param it is ignored (factor 1.0)",
  },
  ...Object.fromEntries(
    ["SequentialUpdate", "SequentialSearch", "BeamSearch"].map((id) => [
      id,
      Object.fromEntries(["memory_size", "default_score", "validate_proposals"].map((k) => [k, "the preset passes it on to the optimizer as an unknown kwarg, where it has no effect"])),
    ]),
  ),
};

/** Trainer names the harness runs as another algorithm (parity scenario gepa-names-harness). */
const RUN_AS: Readonly<Record<string, string>> = {
  "GEPA-Base": "ParetobasedPS",
  "GEPA-UCB": "ParetobasedPS",
  "GEPA-Beam": "ParetobasedPS",
};

export interface HarnessNote {
  /** The params key at fault, or null for the trainer itself. */
  readonly key: string | null;
  readonly text: string;
}

const NOT_COMPARABLE = "this variant's results are not comparable with the Python harness";

/** The notes for one params variant of a trainer (its canonical id). */
export function pythonHarnessNotes(trainerId: string, params: Kwargs): HarnessNote[] {
  const notes: HarnessNote[] = [];
  const other = RUN_AS[trainerId];
  if (other !== undefined) {
    notes.push({ key: null, text: `trainer ${trainerId}: runs the GEPA algorithm here; the Python harness runs ${other} for this name, so its results are not comparable with the harness's ${trainerId} (use ${other} for that)` });
  }
  for (const [key, why] of Object.entries(IGNORED_BY_HARNESS[trainerId] ?? {})) {
    if (params[key] === undefined || params[key] === null) continue;
    notes.push({ key, text: `trainer ${trainerId}: ${key} is honoured here but ignored by the Python harness (${why}): ${NOT_COMPARABLE}` });
  }
  return notes;
}
