/**
 * Runs an agent written in Python (code that calls an LLM API itself) in the python3 worker pool:
 * bubblewrap unless TRACE_BENCH_SANDBOX=off, a fresh python3 per call with a wall-clock limit
 * (see python/python_agent_worker.py). Given the job's loopback endpoint, the agent finds it in
 * OPENAI_BASE_URL / OPENAI_API_KEY: the sandbox has no network, so the worker relays its own
 * 127.0.0.1 to the endpoint's Unix socket, whose folder is bound read-only into the sandbox.
 * The agent's environment is the sandbox's allowlist plus those variables: the provider's key
 * never reaches it.
 */
import { basename, join } from "node:path";
import type { TaskLlmEndpoint } from "../../src/domain/task-llm.js";
import { packageRoot } from "../../src/fs/package-root.js";
import { loopbackSocketDir } from "../../src/llm/loopback-socket-dir.js";
import { OnDemandWorkerPool } from "./on-demand-worker-pool.js";
import { requestWorkerPool } from "./request-worker-pool.js";

export interface PythonAgentCall {
  /** Python source defining `functionName`. */
  readonly code: string;
  readonly functionName: string;
  /** JSON-able arguments. */
  readonly args: readonly unknown[];
  /** The job's endpoint (`context.llm.endpoint()`); without it the agent gets no LLM variables. */
  readonly endpoint?: TaskLlmEndpoint;
  /** Seconds. */
  readonly timeout: number;
}

export type PythonAgentOutcome = { readonly output: unknown; readonly log: string } | { readonly error: string; readonly log: string };

export interface PythonAgentRunner {
  run(call: PythonAgentCall, signal?: AbortSignal): Promise<PythonAgentOutcome>;
  close(): void;
}

const SOCKETS_INSIDE = "/trace-bench/llm";

/** The pool, started on the first call; a call throws WorkerFailure `unavailable` when python3 or the sandbox cannot run. */
export function pythonAgentRunner(workers: () => number): PythonAgentRunner {
  let pool: OnDemandWorkerPool | null = null;
  let sandboxed = false;
  const started = (): OnDemandWorkerPool => {
    if (pool === null) {
      const sockets = loopbackSocketDir();
      const made = requestWorkerPool({
        folder: { host: join(packageRoot(), "adapters", "sandbox", "python"), inside: "/trace-bench/agent" },
        script: "python_agent_worker.py",
        size: Math.max(1, workers()),
        extraArgs: (inside) => ["--socket-dir", inside ? SOCKETS_INSIDE : sockets],
        // The one way out of the sandbox: the jobs' endpoint sockets (each asks for its job's secret).
        extraReadOnly: [{ host: sockets, inside: SOCKETS_INSIDE }],
      });
      sandboxed = made.sandboxed;
      pool = new OnDemandWorkerPool(made.options);
    }
    return pool;
  };
  return {
    async run(call, signal) {
      const workerPool = started();
      const endpoint = call.endpoint && {
        socket: sandboxed ? `${SOCKETS_INSIDE}/${basename(call.endpoint.socketPath)}` : call.endpoint.socketPath,
        base_path: call.endpoint.basePath,
        api_key: call.endpoint.apiKey,
      };
      const message = { op: "run_agent", code: call.code, function: call.functionName, args: call.args, endpoint: endpoint ?? null, timeout: call.timeout };
      // The worker's own limit answers first; this catches a worker that never returns.
      const reply = await workerPool.request({ message, hardTimeoutMs: (call.timeout + 15) * 1000, ...(signal ? { signal } : {}) });
      if (reply.ok !== true) throw new Error(`the python agent worker failed: ${(reply.error as { message?: string } | undefined)?.message ?? "no reason given"}`);
      const result = reply.result as { output?: unknown; error?: string; log?: string };
      const log = typeof result.log === "string" ? result.log : "";
      return typeof result.error === "string" ? { error: result.error, log } : { output: result.output ?? null, log };
    },
    close() {
      pool?.close();
      pool = null;
    },
  };
}
