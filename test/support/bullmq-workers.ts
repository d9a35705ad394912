/**
 * `trace-bench worker` processes for the bullmq executor's tests: started against a test's Redis,
 * ready once each says so, and everything they said kept (the tests read it, never sleep on it).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { CLI, REPO_ROOT } from "./cli.js";
import { until } from "./processes.js";

export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything it wrote to stderr so far. */
  said(): string;
  /** Resolves once it exited. */
  readonly exited: Promise<number | null>;
}

/** Starts one worker; resolves once it takes jobs. */
export async function startWorker(redisUrl: string, options: { readonly concurrency?: number; readonly env?: NodeJS.ProcessEnv } = {}): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [CLI, "worker", "--redis", redisUrl, "--concurrency", String(options.concurrency ?? 1)], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const worker: WorkerProcess = { child, pid: child.pid!, said: () => stderr, exited };
  const ready = await until(() => stderr.includes("ready: taking jobs") || child.exitCode !== null, 60_000, 50);
  if (!ready || child.exitCode !== null) throw new Error(`the worker did not start: ${stderr}`);
  return worker;
}

export async function startWorkers(n: number, redisUrl: string, options: { readonly concurrency?: number; readonly env?: NodeJS.ProcessEnv } = {}): Promise<WorkerProcess[]> {
  return Promise.all(Array.from({ length: n }, () => startWorker(redisUrl, options)));
}

/** Ends every worker still running (SIGKILL: a test's leftovers need no cleanup of their own) and waits for each. */
export async function stopWorkers(workers: WorkerProcess[]): Promise<void> {
  for (const w of workers.splice(0)) {
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill("SIGKILL");
    await w.exited;
  }
}

export interface CoordinatorProcess {
  readonly child: ChildProcess;
  /** What it printed so far (stdout and stderr together). */
  output(): string;
  /** Its exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>;
}

/** `trace-bench run --executor bullmq` as a child process, added to `owned` (the test's cleanup kills what is left). */
export function startCoordinator(
  run: { readonly config: string; readonly runs: string; readonly runId: string; readonly redisUrl: string; readonly env: NodeJS.ProcessEnv },
  owned: ChildProcess[],
): CoordinatorProcess {
  const child = spawn(process.execPath, [CLI, "run", "--config", run.config, "--runs-dir", run.runs, "--run-id", run.runId, "--executor", "bullmq", "--redis", run.redisUrl], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...run.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  owned.push(child);
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (output += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}
