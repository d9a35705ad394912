#!/usr/bin/env node
// What listing VeriBench tasks from a Parquet file costs (adapters/tasks/veribench/
// parquet-column-sync.ts): `TaskSuite.list` is synchronous and hyparquet asynchronous, so a
// short-lived node child reads the `filename` column. Compared, alternately under the same load,
// with reading every row in process through the hf suite's reader (what loading a task does).
//
//   node bench/veribench-listing.mjs FILE.parquet [runs]     (needs `npm run build`)
//
// FILE: any Parquet file of VeriBench rows, e.g. the hub cache's
// datasets--allenanie--veribench_with_prompts/snapshots/<rev>/data/train-00000-of-00001.parquet.
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const [file, runsText = "5"] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write("usage: node bench/veribench-listing.mjs FILE.parquet [runs]\n");
  process.exit(2);
}
const load = (path) => import(pathToFileURL(join(ROOT, "dist", path)).href);
const { parquetColumnSync } = await load("adapters/tasks/veribench/parquet-column-sync.js");
const { readRows } = await load("adapters/tasks/hf/hf-rows.js");

const rows = [];
for (let i = 0; i < Number(runsText); i++) {
  let start = performance.now();
  const names = parquetColumnSync(resolve(file), "filename");
  const child = performance.now() - start;
  start = performance.now();
  let count = 0;
  for await (const _row of readRows({ files: [resolve(file)], format: "parquet" })) count++;
  const inProcess = performance.now() - start;
  rows.push(`| ${i + 1} | ${names.length} | ${child.toFixed(0)} ms | ${count} | ${inProcess.toFixed(0)} ms |`);
}
process.stdout.write(["| run | names | filename column, node child | rows | all rows, in process |", "|---|---|---|---|---|", ...rows].join("\n") + "\n");
