/**
 * The folder where this process's loopback endpoints put their Unix sockets, made on first use
 * and removed when the process exits. A sandbox binds it read-only (connecting to a socket needs
 * no write access to its file system), so code without network reaches the job's endpoint and
 * nothing else. Mode 0711: a sandbox's uid may reach a socket whose name it was given, not list
 * the folder; each socket is guarded by its job's secret anyway.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let dir: string | null = null;

export function loopbackSocketDir(): string {
  if (dir !== null) return dir;
  // Short: a socket's path must fit in 107 bytes.
  const made = mkdtempSync(join(tmpdir(), "tb-llm-"));
  chmodSync(made, 0o711);
  process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  dir = made;
  return made;
}
