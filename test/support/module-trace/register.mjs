// `node --import ./test/support/module-trace/register.mjs bin/trace-bench.js <verb>` lists, in the
// file named by $TRACE_BENCH_MODULE_LOG, every module the process loads: ESM (and CommonJS
// entered from ESM) through a load hook, and at exit the CommonJS modules that were require()d,
// which Node 20's hooks do not see. Used by test/e2e/lazy-adapters.test.ts, and by hand to count
// what a verb loads.
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
import { pathToFileURL } from "node:url";

const logFile = process.env.TRACE_BENCH_MODULE_LOG;
if (!logFile) throw new Error("module-trace: set TRACE_BENCH_MODULE_LOG to the file that receives the list");

register("./hooks.mjs", import.meta.url, { data: { logFile } });

process.on("exit", () => {
  const required = Object.keys(createRequire(import.meta.url).cache).map((path) => pathToFileURL(path).href);
  if (required.length > 0) appendFileSync(logFile, `${required.join("\n")}\n`);
});
