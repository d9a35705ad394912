/**
 * Train, validate and test examples as the original's loader makes them: partitions that share a
 * split are read once and cut into consecutive, disjoint slices in train → validate → test order;
 * a split's rows are shaped into examples (a row may give several) until the partitions are full.
 */
import { TaskUnavailableError } from "../../../src/tasks/task-errors.js";
import { findSplit } from "./hf-data-files.js";
import { defaultRowToExamples } from "./hf-default-row.js";
import type { HfExample } from "./hf-example.js";
import { readRows } from "./hf-rows.js";
import type { HfTaskEntry } from "./hf-task-entry.js";
import type { HfTaskType } from "./hf-task-type.js";

export type PartitionName = "train" | "validate" | "test";

export interface PartitionSpec {
  readonly name: PartitionName;
  readonly split: string;
  readonly count: number;
}

export interface PartitionSource {
  readonly taskId: string;
  readonly entry: HfTaskEntry;
  readonly taskType: HfTaskType;
  readonly dataDir: string | null;
  readonly env: NodeJS.ProcessEnv;
}

export async function loadPartitions(source: PartitionSource, specs: readonly PartitionSpec[]): Promise<Record<PartitionName, HfExample[]>> {
  const partitions: Record<PartitionName, HfExample[]> = { train: [], validate: [], test: [] };
  const bySplit = new Map<string, PartitionSpec[]>();
  for (const spec of specs) bySplit.set(spec.split, [...(bySplit.get(spec.split) ?? []), spec]);
  for (const [split, group] of bySplit) {
    const total = group.reduce((sum, spec) => sum + spec.count, 0);
    const loaded = total > 0 ? await loadExamples(source, split, total) : [];
    let start = 0;
    for (const spec of group) {
      partitions[spec.name] = loaded.slice(start, start + spec.count);
      start += spec.count;
    }
  }
  return partitions;
}

/** Up to `n` examples from the start of a split; the job is skipped when the split is not on this machine. */
export async function loadExamples(source: PartitionSource, split: string, n: number): Promise<HfExample[]> {
  const { entry, taskType } = source;
  const search = findSplit({ datasetId: entry.dataset_id, config: entry.dataset_config ?? null, split }, source.dataDir, source.env);
  if (search.found === null) {
    const dataset = entry.dataset_config ? `${entry.dataset_id} (config ${entry.dataset_config})` : entry.dataset_id;
    throw new TaskUnavailableError({
      taskId: source.taskId,
      reason:
        `dataset ${dataset}, split '${split}' not found on this machine; looked in: ${search.looked.join("; ")}. ` +
        "Put the split there as JSON Lines or Parquet (data_dir / TRACE_BENCH_HF_DATA_DIR), or download it into the HuggingFace hub cache",
    });
  }
  const toExamples = taskType.rowToExamples ?? ((row, e) => defaultRowToExamples(row, e, taskType.formatContext));
  const examples: HfExample[] = [];
  for await (const row of readRows(search.found)) {
    if (examples.length >= n) break;
    for (const example of toExamples(row, entry)) {
      examples.push(example);
      if (examples.length >= n) break;
    }
  }
  return examples;
}
