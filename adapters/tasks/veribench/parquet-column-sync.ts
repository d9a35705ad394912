/**
 * One column of a Parquet file, read synchronously. Task listing is synchronous (`TaskSuite.list`)
 * and hyparquet, the project's Parquet reader, is asynchronous only; so a short-lived Node child
 * reads the column with hyparquet and prints it as JSON. Only listing pays for this (once per
 * process: one node start, measured in docs/performance.md); loading a task reads its rows in process.
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const READ_COLUMN = `
const [reader, file, column] = process.argv.slice(1);
const { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } = await import(reader);
const buffer = await asyncBufferFromFile(file);
const metadata = await parquetMetadataAsync(buffer);
const rows = Number(metadata.num_rows);
let values;
if (!metadata.schema.slice(1).some((element) => element.name === column)) values = new Array(rows).fill(null);
else values = (await parquetReadObjects({ file: buffer, metadata, columns: [column] })).map((row) => (typeof row[column] === "string" ? row[column] : null));
process.stdout.write(JSON.stringify(values));
`;

/** The column's string values (null for a missing column or a non-string value); throws naming the file. */
export function parquetColumnSync(file: string, column: string): (string | null)[] {
  const reader = pathToFileURL(createRequire(import.meta.url).resolve("hyparquet")).href;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", READ_COLUMN, reader, file, column], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (child.error !== undefined) throw new Error(`${file}: cannot start the Parquet reader (${child.error.message})`);
  if (child.status !== 0) {
    const why = child.stderr.split("\n").find((line) => /Error/.test(line)) ?? child.stderr.trim().split("\n")[0] ?? `exit ${child.status}`;
    throw new Error(`${file}: not a readable Parquet file (${why.trim()})`);
  }
  return JSON.parse(child.stdout) as (string | null)[];
}
