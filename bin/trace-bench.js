#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run automatically by `npm install`).

// `trace-bench list-tasks | head` closes the pipe early; that is not an error.
process.stdout.on("error", (error) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

import { main } from "../dist/cli/main.js";

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`trace-bench: internal error: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 70;
  },
);
