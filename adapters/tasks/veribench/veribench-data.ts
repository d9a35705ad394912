/**
 * Where the VeriBench rows are on this machine, read as the hf suite reads its data (its file
 * finder and row reader), without Python or the network:
 * * a file or folder named by `eval_kwargs.data`, else by TRACE_BENCH_VERIBENCH_DATA: a `.jsonl` or
 *   `.parquet` file with `filename, code, user_query, category`, or a folder laid out as the hf
 *   suite's data directory (`allenanie/veribench_with_prompts/train.jsonl`) or as a hub cache;
 * * else the HuggingFace hub cache (HF_HUB_CACHE, HF_HOME/hub, ~/.cache/huggingface/hub) holding
 *   `allenanie/veribench_with_prompts`, as `datasets` or `huggingface-cli download` leave it.
 */
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { findSplit, type FoundSplit } from "../hf/hf-data-files.js";
import { readRows } from "../hf/hf-rows.js";
import { parquetColumnSync } from "./parquet-column-sync.js";
import { indexNames, type VeribenchIndex, type VeribenchRow } from "./veribench-rows.js";

export const VERIBENCH_DATASET_ID = "allenanie/veribench_with_prompts";
export const VERIBENCH_DATA_ENV = "TRACE_BENCH_VERIBENCH_DATA";

export type VeribenchData = { readonly found: FoundSplit; readonly from: string } | { readonly found: null; readonly why: string };

function kindOf(path: string): "file" | "folder" | null {
  try {
    const stat = statSync(path);
    return stat.isFile() ? "file" : stat.isDirectory() ? "folder" : null;
  } catch {
    return null;
  }
}

/** `setting`: the config's `data` (with its key, for messages), else the variable's value, else null. */
export function locateVeribenchData(setting: { readonly value: string; readonly key: string } | null, env: NodeJS.ProcessEnv): VeribenchData {
  const where = { datasetId: VERIBENCH_DATASET_ID, config: null, split: "train" };
  if (setting !== null) {
    const path = resolve(setting.value);
    const kind = kindOf(path);
    if (kind === "file") {
      const format = path.endsWith(".jsonl") ? "jsonl" : path.endsWith(".parquet") ? "parquet" : null;
      if (format === null) return { found: null, why: `${setting.key}: '${path}' is neither a .jsonl nor a .parquet file` };
      return { found: { files: [path], format }, from: path };
    }
    if (kind === "folder") {
      // The folder is read as a data directory, then as a hub cache: never the user's own hub cache instead.
      const search = findSplit(where, path, { ...env, HF_HUB_CACHE: path });
      if (search.found !== null) return { found: search.found, from: path };
      return { found: null, why: `${setting.key}: no VeriBench rows in '${path}' (looked for ${search.looked.join(", ")})` };
    }
    return { found: null, why: `${setting.key}: '${path}' does not exist; point it at a .jsonl or .parquet file of VeriBench rows` };
  }
  const search = findSplit(where, null, env);
  if (search.found !== null) return { found: search.found, from: "the HuggingFace hub cache" };
  return { found: null, why: `no VeriBench data on this machine (looked in ${search.looked.join(", ")}); set ${VERIBENCH_DATA_ENV} to a .jsonl or .parquet file of VeriBench rows` };
}

/** Task names of found data, read synchronously (task listing is synchronous); throws with the file on bad data. */
export function indexVeribenchData(found: FoundSplit): VeribenchIndex {
  const filenames: unknown[] = [];
  for (const file of found.files) {
    if (found.format === "parquet") filenames.push(...parquetColumnSync(file, "filename"));
    else filenames.push(...jsonlRowsSync(file).map((row) => row.filename));
  }
  return indexNames(filenames);
}

/** JSON Lines rows, blank lines skipped, as the hf reader reads them (so row indexes agree). */
function jsonlRowsSync(file: string): VeribenchRow[] {
  const rows: VeribenchRow[] = [];
  readFileSync(file, "utf8")
    .split(/\r\n|\r|\n/)
    .forEach((line, i) => {
      if (line.trim() === "") return;
      let row: unknown;
      try {
        row = JSON.parse(line);
      } catch (error) {
        throw new Error(`${file}:${i + 1}: not a JSON object (${error instanceof Error ? error.message : String(error)}); each line must be one row`);
      }
      if (typeof row !== "object" || row === null || Array.isArray(row)) throw new Error(`${file}:${i + 1}: a row must be a JSON object of fields`);
      rows.push(row as VeribenchRow);
    });
  return rows;
}

/** Every row, in order, through the hf suite's reader. */
export async function readVeribenchRows(found: FoundSplit): Promise<VeribenchRow[]> {
  const rows: VeribenchRow[] = [];
  for await (const row of readRows(found)) rows.push(row as VeribenchRow);
  return rows;
}
