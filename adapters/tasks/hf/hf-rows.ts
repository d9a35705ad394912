/**
 * Rows of a found split, read lazily in file order: JSON Lines through a line reader, Parquet
 * through hyparquet (a maintained pure-JavaScript reader), a few row groups at a time, so taking
 * the first hundred examples of a large split reads little more than those.
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import type { AsyncBuffer, FileMetaData } from "hyparquet";
import type { HfRow } from "./hf-example.js";
import type { FoundSplit } from "./hf-data-files.js";

/** A file that cannot be read as its format says: names the file and the line or the problem. */
export class HfDataFileError extends Error {}

export async function* readRows(split: FoundSplit): AsyncGenerator<HfRow> {
  for (const file of split.files) {
    if (split.format === "jsonl") yield* jsonlRows(file);
    else yield* parquetRows(file);
  }
}

async function* jsonlRows(file: string): AsyncGenerator<HfRow> {
  const lines = createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity });
  let lineNo = 0;
  try {
    for await (const line of lines) {
      lineNo += 1;
      if (line.trim() === "") continue;
      let row: unknown;
      try {
        row = JSON.parse(line);
      } catch (error) {
        throw new HfDataFileError(`${file}:${lineNo}: not a JSON object (${error instanceof Error ? error.message : String(error)}); each line must be one row`);
      }
      if (typeof row !== "object" || row === null || Array.isArray(row)) throw new HfDataFileError(`${file}:${lineNo}: a row must be a JSON object of fields`);
      yield row as HfRow;
    }
  } finally {
    lines.close();
  }
}

/** Rows read per hyparquet call: small enough to stop early, large enough to decode whole pages. */
const BATCH_ROWS = 256;

async function* parquetRows(file: string): AsyncGenerator<HfRow> {
  // Loaded on the first Parquet file, not at the top: every run loads this suite, few read Parquet (docs/performance.md: ledger).
  const { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } = await import("hyparquet");
  let total: number;
  let buffer: AsyncBuffer;
  let metadata: FileMetaData;
  try {
    buffer = await asyncBufferFromFile(file);
    metadata = await parquetMetadataAsync(buffer);
    total = Number(metadata.num_rows);
  } catch (error) {
    throw new HfDataFileError(`${file}: not a readable Parquet file (${error instanceof Error ? error.message : String(error)})`);
  }
  for (let start = 0; start < total; start += BATCH_ROWS) {
    let rows: Record<string, unknown>[];
    try {
      rows = await parquetReadObjects({ file: buffer, metadata, rowStart: start, rowEnd: Math.min(total, start + BATCH_ROWS) });
    } catch (error) {
      throw new HfDataFileError(`${file}: rows ${start}..${start + BATCH_ROWS} cannot be decoded (${error instanceof Error ? error.message : String(error)})`);
    }
    for (const row of rows) yield plainValue(row) as HfRow;
  }
}

/** Parquet int64 arrives as bigint: a number when it fits, as Python's int would compare. */
function plainValue(value: unknown): unknown {
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value;
  if (Array.isArray(value)) return value.map(plainValue);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "object" && value !== null && !(value instanceof Uint8Array)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainValue(v)]));
  }
  return value;
}
