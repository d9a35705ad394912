#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run automatically by `npm install`).

// `trace-bench list-tasks | head` closes the pipe early; that is not an error.
process.stdout.on("error", (error) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

import { main } from "../dist/cli/main.js";

// TRACE_BENCH_CPU_LOG=<file>: at exit, one JSON line with the verb and the CPU seconds of every
// thread of this process (how the test suite counts what its CLI processes cost).
if (process.env.TRACE_BENCH_CPU_LOG) {
  const { appendFileSync } = await import("node:fs");
  process.on("exit", (code) => {
    const { user, system } = process.cpuUsage();
    const line = { verb: process.argv[2] ?? null, cpu_s: Math.round((user + system) / 1e4) / 100, code };
    appendFileSync(process.env.TRACE_BENCH_CPU_LOG, `${JSON.stringify(line)}\n`);
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`trace-bench: internal error: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 70;
  },
);
