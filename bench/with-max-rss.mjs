#!/usr/bin/env node
// Runs the trace-bench CLI in this process (exactly what bin/trace-bench.js does) and, when the
// process exits, reports its peak resident set size: `process.resourceUsage().maxRSS` (KiB).
//
//   node bench/with-max-rss.mjs <trace-bench argv...>
//
// The figure goes to the file named by $TRACE_BENCH_MAX_RSS_FILE when set, else to stderr as
// `max_rss_kib=<n>`. It covers this process only (a task's child processes are not counted).
import { writeFileSync } from "node:fs";
import { main } from "../dist/src/cli/main.js";

process.on("exit", () => {
  const kib = process.resourceUsage().maxRSS;
  const out = process.env.TRACE_BENCH_MAX_RSS_FILE;
  if (out) writeFileSync(out, `${kib}\n`);
  else process.stderr.write(`max_rss_kib=${kib}\n`);
});

process.stdout.on("error", (error) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`trace-bench: internal error: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 70;
  },
);
