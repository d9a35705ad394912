/**
 * The built CLI run with a folder made read-only for it alone: a read-only bind mount of the
 * folder onto itself, in a mount namespace of the child's own (`unshare --mount`). Root ignores
 * file modes, so only a read-only file system stops it writing; the tests run as root.
 */
import { spawnSync } from "node:child_process";
import { CLI, REPO_ROOT, runProcess, type CliResult } from "./cli.js";

let usable: boolean | undefined;

/** Whether this machine lets a child process mount in a namespace of its own. */
export function canMountReadOnly(): boolean {
  usable ??= spawnSync("unshare", ["--mount", "sh", "-c", 'mount --bind -o ro "$0" "$0"', REPO_ROOT], { encoding: "utf8" }).status === 0;
  return usable;
}

/** `trace-bench ...args` with `dir` (and all under it) on a read-only file system (awaited: not blocking the test worker). */
export function readOnlyCli(dir: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return runProcess("unshare", ["--mount", "sh", "-c", 'dir="$0"; mount --bind -o ro "$dir" "$dir" && exec "$@"', dir, process.execPath, CLI, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
  });
}
