/**
 * Hand-written VeriBench rows (made up for the tests, in the dataset's fields: filename, code,
 * user_query, category) and helpers that lay them out as a JSONL file, a Parquet file, or the
 * HuggingFace hub cache of `allenanie/veribench_with_prompts`.
 */
import { join } from "node:path";
import { writeHubCacheFile, writeJsonl, writeParquetFile } from "./hf-datasets.js";

export interface VeribenchTestRow {
  readonly filename: string | null;
  readonly code: string;
  readonly user_query: string;
  readonly category: string;
}

const row = (filename: string | null, code: string, category = "cs_set"): VeribenchTestRow => ({
  filename,
  code,
  user_query: `Translate this Python program into Lean 4:\n\n${code}`,
  category,
});

/** The three tasks the original's smoke config names, then a repeated name and a row with no filename. */
export const VERIBENCH_ROWS: readonly VeribenchTestRow[] = [
  row("binary_search.py", "def binary_search(arr, target):\n    lo, hi = 0, len(arr) - 1\n    return -1"),
  row("bubble_sort.py", "def bubble_sort(arr):\n    return sorted(arr)"),
  row("insertion_sort.py", "def insertion_sort(arr):\n    return sorted(arr)"),
  row("bubble_sort.py", "def bubble_sort(arr):\n    return list(arr)", "duplicate"),
  row(null, "def square(x):\n    return x * x", "math"),
];

/** The ids `list-tasks` must print for VERIBENCH_ROWS, in order. */
export const VERIBENCH_IDS = ["veribench:binary_search", "veribench:bubble_sort", "veribench:insertion_sort", "veribench:task_4"];

export function writeVeribenchJsonl(path: string, rows: readonly object[] = VERIBENCH_ROWS): string {
  writeJsonl(path, rows);
  return path;
}

/** A Parquet file (REQUIRED string columns, so a missing filename is written as ""). */
export function writeVeribenchParquet(path: string, rows: readonly VeribenchTestRow[] = VERIBENCH_ROWS): string {
  writeParquetFile(path, [
    { name: "filename", type: "string", values: rows.map((r) => r.filename ?? "") },
    { name: "code", type: "string", values: rows.map((r) => r.code) },
    { name: "user_query", type: "string", values: rows.map((r) => r.user_query) },
    { name: "category", type: "string", values: rows.map((r) => r.category) },
  ]);
  return path;
}

/** A hub cache as `datasets` leaves it: `data/train-00000-of-00001.parquet` in a snapshot. */
export function writeVeribenchHubCache(hubCache: string, rows: readonly VeribenchTestRow[] = VERIBENCH_ROWS): string {
  writeHubCacheFile(hubCache, "allenanie/veribench_with_prompts", "a1b2c3", "data/train-00000-of-00001.parquet", (p) => writeVeribenchParquet(p, rows));
  return join(hubCache, "datasets--allenanie--veribench_with_prompts");
}
