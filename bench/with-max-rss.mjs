#!/usr/bin/env node
// Runs the trace-bench CLI in this process (it loads bin/trace-bench.js, whose argv positions are
// the same) and, when the process exits, reports its peak resident set size:
// `process.resourceUsage().maxRSS` (KiB).
//
//   node bench/with-max-rss.mjs <trace-bench argv...>
//
// The figure goes to the file named by $TRACE_BENCH_MAX_RSS_FILE when set, else to stderr as
// `max_rss_kib=<n>`. It covers this process only (a task's child processes are not counted).
import { writeFileSync } from "node:fs";

process.on("exit", () => {
  const kib = process.resourceUsage().maxRSS;
  const out = process.env.TRACE_BENCH_MAX_RSS_FILE;
  if (out) writeFileSync(out, `${kib}\n`);
  else process.stderr.write(`max_rss_kib=${kib}\n`);
});

await import("../bin/trace-bench.js");
