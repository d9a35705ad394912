/**
 * Runs `harbor run` as a child process under the job's cancellation and a time limit, with the
 * original's two compatibility retries (suites.md §4.4): `--include-task-name` for Harbor 0.6
 * builds, then `--agent <Class> --agent-import-path <module>` under the job name `<job>-retry1`.
 */
import { harborArgs, type HarborRunRequest } from "./harbor-command.js";

export interface HarborProcess {
  readonly args: readonly string[];
  readonly jobName: string;
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Killed at the time limit (exit code 124, as the original reports it). */
  readonly timedOut: boolean;
}

export interface HarborRunOptions {
  readonly executable: string;
  readonly env: Record<string, string>;
  readonly cwd: string;
  readonly timeoutS: number | null;
  readonly signal?: AbortSignal;
  /** Each attempt, as it ends (for the job's log). */
  readonly onAttempt?: (attempt: HarborProcess) => void;
}

async function attempt(args: string[], jobName: string, options: HarborRunOptions): Promise<HarborProcess> {
  // Loaded here: a run that calls no Harbor (every other suite's) does not load execa.
  const { execa } = await import("execa");
  const child = await execa(options.executable, args, {
    env: options.env,
    extendEnv: false,
    cwd: options.cwd,
    reject: false,
    stdin: "ignore",
    stripFinalNewline: false,
    ...(options.timeoutS !== null ? { timeout: options.timeoutS * 1000 } : {}),
    ...(options.signal !== undefined ? { cancelSignal: options.signal } : {}),
    // Harbor's Docker children die with it; a second later a Harbor that ignores SIGTERM is killed.
    forceKillAfterDelay: 1000,
    cleanup: true,
  });
  if (options.signal?.aborted) throw options.signal.reason instanceof Error ? options.signal.reason : new Error("the job was stopped while Harbor ran");
  const timedOut = child.timedOut === true;
  const stderr = String(child.stderr ?? "") + (timedOut ? `${child.stderr ? "\n" : ""}Harbor CLI timed out after ${options.timeoutS} seconds` : "");
  const ended: HarborProcess = { args, jobName, exitCode: timedOut ? 124 : (child.exitCode ?? 1), stdout: String(child.stdout ?? ""), stderr, timedOut };
  options.onAttempt?.(ended);
  return ended;
}

export async function runHarbor(request: HarborRunRequest, options: HarborRunOptions): Promise<HarborProcess> {
  const args = harborArgs(request);
  let result = await attempt(args, request.jobName, options);
  if (result.exitCode === 0 || result.timedOut) return result;
  if (request.dataset !== undefined && request.taskPath === undefined) {
    const compat = args.map((a) => (a === "--task-name" ? "--include-task-name" : a));
    const second = await attempt(compat, request.jobName, options);
    if (second.exitCode === 0) return second;
  }
  const importPath = request.agentImportPath;
  if (importPath !== undefined && importPath.includes(":")) {
    const [module, cls] = [importPath.slice(0, importPath.indexOf(":")), importPath.slice(importPath.indexOf(":") + 1)];
    const jobName = `${request.jobName}-retry1`;
    const third = await attempt(harborArgs({ ...request, jobName, agentName: request.agentName ?? cls, agentImportPath: module }), jobName, options);
    if (third.exitCode === 0) result = third;
  }
  return result;
}
