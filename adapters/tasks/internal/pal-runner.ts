/**
 * Runs a PAL program (Python that sets `result` from `question`) in the python3 worker pool
 * (bubblewrap unless TRACE_BENCH_SANDBOX=off), never in the engine: the worker starts a fresh
 * python3 per program with a wall-clock limit, measures the exec's CPU time with
 * time.process_time() as the original does, and kills whatever the program left
 * (python/pal_worker.py).
 */
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { packageRoot } from "../../../src/fs/package-root.js";
import { OnDemandWorkerPool } from "../../sandbox/on-demand-worker-pool.js";
import { requestWorkerPool } from "../../sandbox/request-worker-pool.js";
import { WorkerFailure } from "../../sandbox/worker-failure.js";

export interface PalOutcome {
  /** `str(result)`, or null when the program raised or set none. */
  readonly result: string | null;
  /** "<ExceptionType>: <message>" or "No 'result' variable set by code"; null on success. */
  readonly error: string | null;
  /** CPU seconds of the exec (a program stopped at the time limit: the limit). */
  readonly executionTimeS: number;
}

export interface PalRunner {
  run(code: string, question: string, signal?: AbortSignal): Promise<PalOutcome>;
  close(): void;
}

/** Wall-clock seconds one program may run (the original has no limit; a loop would hang its job). */
export const PAL_TIMEOUT_S = 10;

/** The pool, started on the first program; a request throws WorkerFailure `unavailable` when python3 or the sandbox cannot run. */
export function pythonPalRunner(workers: number = Math.min(4, availableParallelism())): PalRunner {
  let pool: OnDemandWorkerPool | null = null;
  const started = (): OnDemandWorkerPool => {
    if (pool === null) {
      const { options } = requestWorkerPool({
        folder: { host: join(packageRoot(), "adapters", "tasks", "internal", "python"), inside: "/trace-bench/internal" },
        script: "pal_worker.py",
        size: Math.max(1, workers),
      });
      pool = new OnDemandWorkerPool(options);
    }
    return pool;
  };
  return {
    async run(code, question, signal) {
      let reply: Record<string, unknown>;
      try {
        // The worker's own limit answers first; this catches a worker that never returns.
        reply = await started().request({ message: { op: "run_pal", code, question, timeout: PAL_TIMEOUT_S }, hardTimeoutMs: (PAL_TIMEOUT_S + 15) * 1000, ...(signal ? { signal } : {}) });
      } catch (error) {
        if (error instanceof WorkerFailure && error.kind === "timeout") return { result: null, error: `TimeoutError: the program ran longer than ${PAL_TIMEOUT_S}s`, executionTimeS: PAL_TIMEOUT_S };
        throw error;
      }
      if (reply.ok !== true) throw new Error(`the PAL worker failed: ${(reply.error as { message?: string } | undefined)?.message ?? "no reason given"}`);
      const result = reply.result as { result?: unknown; error?: unknown; execution_time_s?: unknown };
      const seconds = typeof result.execution_time_s === "number" ? result.execution_time_s : PAL_TIMEOUT_S;
      return {
        result: typeof result.result === "string" ? result.result : null,
        error: typeof result.error === "string" ? result.error : null,
        executionTimeS: seconds,
      };
    },
    close() {
      pool?.close();
      pool = null;
    },
  };
}
