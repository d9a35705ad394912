// The temp workspace of a bench script: one folder (under BENCH_TMPDIR or the OS temp dir),
// removed on every exit path. Ctrl-C or SIGTERM first stops the child process being timed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function benchWorkspace(prefix) {
  const dir = mkdtempSync(join(process.env.BENCH_TMPDIR || tmpdir(), prefix));
  let cleaned = false;
  let current = null; // the running child process
  const cleanup = () => {
    if (cleaned) return;
    cleaned = true;
    rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", cleanup);
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, () => {
      process.stderr.write(`bench: ${signal}, stopping\n`);
      if (current !== null && current.exitCode === null && current.signalCode === null) {
        current.once("close", () => process.exit(130));
        current.kill("SIGKILL");
        return;
      }
      process.exit(130);
    });
  }
  return {
    dir,
    /** The child being timed now (stopped on a signal), or null. */
    running(child) {
      current = child;
    },
    finished(child) {
      if (current === child) current = null;
    },
  };
}
