/** Runs the built CLI (`bin/trace-bench.js`) as a real child process. */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const CLI = join(REPO_ROOT, "bin", "trace-bench.js");

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ProcessOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Written to the child's stdin, which is then closed (closed at once without it). */
  readonly input?: string;
  /** Past it the child is killed (SIGTERM, as spawnSync's timeout did) and `code` is null. */
  readonly timeoutMs?: number;
}

/**
 * `file ...args` as a child process, awaited without blocking the test worker's event loop: a
 * worker blocked in spawnSync for seconds on a busy machine misses vitest's RPC calls, and the
 * run ends "Timeout calling onTaskUpdate" although every test passed. Same result shape as
 * spawnSync's (code null when killed by a signal).
 */
export function runProcess(file: string, args: readonly string[], options: ProcessOptions = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, { cwd: options.cwd ?? REPO_ROOT, env: options.env ?? process.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    // A child that exits without reading its stdin must not fail the run with EPIPE.
    child.stdin.on("error", () => {});
    child.stdin.end(options.input ?? "");
    const deadline = setTimeout(() => child.kill("SIGTERM"), options.timeoutMs ?? 60_000);
    child.on("error", (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(deadline);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** `trace-bench ...args` run with the repo as cwd unless told otherwise; `env` is added to this process's. */
export function runCli(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  return runProcess(process.execPath, [CLI, ...args], { cwd: options.cwd ?? REPO_ROOT, env: { ...process.env, ...options.env } });
}

/** Every temp dir this test file made, so after-all checks can find the runs in them. */
export const createdTempDirs: string[] = [];
/** Run directories whose log a test doctored on purpose: not held to `replay --verify`. */
export const doctoredRunDirs = new Set<string>();

export function tempDir(prefix = "trace-bench-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  createdTempDirs.push(dir);
  return dir;
}
