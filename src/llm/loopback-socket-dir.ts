/**
 * The folder where this process's loopback endpoints put their Unix sockets, made on first use
 * and removed when the process exits. A sandbox binds it read-only (connecting to a socket needs
 * no write access to its file system), so code without network reaches the job's endpoint and
 * nothing else. Mode 0711: a sandbox's uid may reach a socket whose name it was given, not list
 * the folder; each socket is guarded by its job's secret anyway.
 *
 * The folder's name says whose it is (pid and start time): a run killed -9 cannot remove its own,
 * so the next run that makes one first removes those whose owner is gone.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ownedPrefix, sweepLoopbackSocketDirs } from "./loopback-socket-sweep.js";

/**
 * Kept on globalThis, not in a module variable: a task suite loaded from TRACE_BENCH_TASK_MODULES
 * may import its own copy of this module (the built files beside the bundled CLI), and its
 * sandboxes must bind the folder the engine's endpoints listen in.
 */
const KEY = Symbol.for("trace-bench.loopbackSocketDir");
type Holder = { [KEY]?: string };

export function loopbackSocketDir(): string {
  const holder = globalThis as Holder;
  const known = holder[KEY];
  if (known !== undefined) return known;
  // In the background: a folder's sockets are tried before it is removed, and nothing waits on that.
  void sweepLoopbackSocketDirs(tmpdir()).catch(() => undefined);
  // Short: a socket's path must fit in 107 bytes.
  const made = mkdtempSync(join(tmpdir(), ownedPrefix()));
  chmodSync(made, 0o711);
  process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  holder[KEY] = made;
  return made;
}
