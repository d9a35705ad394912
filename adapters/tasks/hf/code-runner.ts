/**
 * Runs a code candidate with its unit tests in the python3 worker pool (bubblewrap unless
 * TRACE_BENCH_SANDBOX=off), never in the engine: the worker starts a fresh python3 per candidate
 * with a wall-clock limit and kills whatever it left (see python/hf_code_worker.py).
 */
import { join } from "node:path";
import { packageRoot } from "../../../src/fs/package-root.js";
import { OnDemandWorkerPool } from "../../sandbox/on-demand-worker-pool.js";
import { pythonWorkerPool } from "../../sandbox/python-sandbox.js";

export interface UnitTestRun {
  readonly candidate: string;
  readonly test: string;
  readonly entryPoint: string;
  readonly setup: string;
  /** Seconds. */
  readonly timeout: number;
}

export interface UnitTestOutcome {
  readonly passed: boolean;
  readonly detail: string;
}

export interface CodeRunner {
  run(request: UnitTestRun, signal?: AbortSignal): Promise<UnitTestOutcome>;
  close(): void;
}

const INSIDE = { code: "/trace-bench/hf", shared: "/trace-bench/llm4ad" } as const;

/** The pool, started on the first candidate; throws WorkerFailure `unavailable` when python3 or the sandbox cannot run. */
export function pythonCodeRunner(workers: () => number): CodeRunner {
  let pool: OnDemandWorkerPool | null = null;
  const hfDir = join(packageRoot(), "adapters", "tasks", "hf", "python");
  const sharedDir = join(packageRoot(), "adapters", "tasks", "llm4ad", "python");
  return {
    async run(request, signal) {
      if (pool === null) {
        const { options } = pythonWorkerPool({
          script: (inside) => join(inside ? INSIDE.code : hfDir, "hf_code_worker.py"),
          scriptArgs: (inside) => ["--shared-dir", inside ? INSIDE.shared : sharedDir],
          readOnly: [
            { host: hfDir, inside: INSIDE.code },
            { host: sharedDir, inside: INSIDE.shared },
          ],
          env: () => ({}),
          size: Math.max(1, workers()),
        });
        pool = new OnDemandWorkerPool(options);
      }
      const reply = await pool.request({
        message: { op: "run_tests", candidate: request.candidate, test: request.test, entry_point: request.entryPoint, setup: request.setup, timeout: request.timeout },
        // The worker's own limit answers first; this catches a worker that never returns.
        hardTimeoutMs: (request.timeout + 15) * 1000,
        ...(signal ? { signal } : {}),
      });
      if (reply.ok !== true) throw new Error(`the code worker failed: ${(reply.error as { message?: string } | undefined)?.message ?? "no reason given"}`);
      return reply.result as UnitTestOutcome;
    },
    close() {
      pool?.close();
      pool = null;
    },
  };
}
