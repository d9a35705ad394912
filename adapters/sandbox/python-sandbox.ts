/**
 * How a pool starts a python3 evaluation worker: inside bubblewrap (see bubblewrap.ts) with the
 * interpreter, the worker's code and the task's files read-only, a private /tmp, an allowlisted
 * environment, and the worker as init of its pid namespace, dropping root for a uid of its own
 * whose process count is capped; or, with the sandbox off, as a plain child process.
 */
import { randomInt } from "node:crypto";
import { join } from "node:path";
import { bubblewrapArgs, bubblewrapProblem, type ReadOnlyPath } from "./bubblewrap.js";
import { pythonRuntime, type PythonRuntime } from "./python-runtime.js";
import { candidateEnv } from "./sandbox-env.js";
import { SandboxSettingError, sandboxMode, warnSandboxOff, type SandboxMode } from "./sandbox-mode.js";
import { WorkerFailure } from "./worker-failure.js";
import type { PoolOptions } from "./worker-pool.js";

export interface PythonWorkerSpec {
  /** The worker script, as the sandbox sees it (inside one of `readOnly`). */
  readonly script: (sandboxed: boolean) => string;
  /** Its arguments, as the sandbox sees paths. */
  readonly scriptArgs: (sandboxed: boolean) => readonly string[];
  /** The worker's code and the task's files; inside paths are used only when sandboxed. */
  readonly readOnly: readonly ReadOnlyPath[];
  /** Variables the task needs, given the paths the sandbox sees. */
  readonly env: (sandboxed: boolean) => Readonly<Record<string, string>>;
  readonly size: number;
  readonly onStderr?: (text: string) => void;
}

/** Processes (threads included) one worker and everything its candidates start may have at once. */
export const MAX_PROCESSES = 64;
/** The size of the sandbox's /tmp, MiB: a candidate cannot fill the machine's memory through files. */
export const SCRATCH_MB = 512;
const SCRATCH = "/tmp";
/** The uids sandboxed workers drop to, one per worker: far above any real account's. */
const SANDBOX_UIDS = { first: 2_000_000_000, count: 100_000_000 };

export interface PythonWorkerPool {
  readonly options: PoolOptions;
  /** Whether the workers see paths at the `inside` of their binds. */
  readonly sandboxed: boolean;
}

/** Pool options for sandboxed python3 workers; throws WorkerFailure `unavailable` when they cannot run here. */
export function pythonWorkerPool(spec: PythonWorkerSpec): PythonWorkerPool {
  let mode: SandboxMode;
  try {
    mode = sandboxMode();
  } catch (error) {
    if (error instanceof SandboxSettingError) throw new WorkerFailure("unavailable", error.message);
    throw error;
  }
  const python = pythonRuntime();
  return mode === "off" ? { options: unconfined(spec, python), sandboxed: false } : { options: confined(spec, python), sandboxed: true };
}

function unconfined(spec: PythonWorkerSpec, python: PythonRuntime): PoolOptions {
  warnSandboxOff();
  return {
    command: python.executable,
    args: (dir) => [spec.script(false), ...spec.scriptArgs(false), "--scratch", join(dir, "scratch")],
    size: spec.size,
    env: candidateEnv(process.env, { scratch: "/tmp", path: process.env.PATH ?? "/usr/bin:/bin", extra: { PYTHONPATH: python.importPath.join(":"), ...spec.env(false) } }),
    ...(spec.onStderr ? { onStderr: spec.onStderr } : {}),
  };
}

function confined(spec: PythonWorkerSpec, python: PythonRuntime): PoolOptions {
  const problem = bubblewrapProblem();
  if (problem !== null) throw new WorkerFailure("unavailable", `${problem}; or set TRACE_BENCH_SANDBOX=off to run candidates unconfined`);
  const env = candidateEnv(process.env, { scratch: SCRATCH, path: "/usr/local/bin:/usr/bin:/bin", extra: { PYTHONPATH: python.importPath.join(":"), ...spec.env(true) } });
  const readOnly = [...python.folders.map((host) => ({ host })), ...spec.readOnly];
  return {
    command: "bwrap",
    args: () =>
      bubblewrapArgs({
        readOnly,
        scratch: SCRATCH,
        scratchMb: SCRATCH_MB,
        env,
        command: [
          python.executable,
          spec.script(true),
          ...spec.scriptArgs(true),
          "--scratch",
          SCRATCH,
          "--init",
          "--uid",
          String(SANDBOX_UIDS.first + randomInt(SANDBOX_UIDS.count)),
          "--max-processes",
          String(MAX_PROCESSES),
        ],
      }),
    size: spec.size,
    env: {},
    ...(spec.onStderr ? { onStderr: spec.onStderr } : {}),
  };
}
