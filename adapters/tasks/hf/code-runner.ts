/**
 * Runs a code candidate with its unit tests (or a trainable extract_answer on a reply) in the python3 worker pool (bubblewrap unless
 * TRACE_BENCH_SANDBOX=off), never in the engine: the worker starts a fresh python3 per candidate
 * with a wall-clock limit and kills whatever it left (see python/hf_code_worker.py).
 */
import { join } from "node:path";
import { packageRoot } from "../../../src/fs/package-root.js";
import { OnDemandWorkerPool } from "../../sandbox/on-demand-worker-pool.js";
import { requestWorkerPool } from "../../sandbox/request-worker-pool.js";

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

export interface ExtractAnswerRun {
  /** Python source defining extract_answer(self, prompt_template, question, response). */
  readonly code: string;
  readonly promptTemplate: string;
  readonly question: string;
  readonly response: string;
}

export interface CodeRunner {
  run(request: UnitTestRun, signal?: AbortSignal): Promise<UnitTestOutcome>;
  /** The answer, or the error the code raised (exception, line), as the agent's failure. */
  extractAnswer(request: ExtractAnswerRun, signal?: AbortSignal): Promise<{ readonly answer: string } | { readonly error: string }>;
  close(): void;
}

/** Seconds an extract_answer may run on one reply. */
const EXTRACT_TIMEOUT_S = 10;

/** The pool, started on the first candidate; throws WorkerFailure `unavailable` when python3 or the sandbox cannot run. */
export function pythonCodeRunner(workers: () => number): CodeRunner {
  let pool: OnDemandWorkerPool | null = null;
  const started = (): OnDemandWorkerPool => {
    if (pool === null) {
      const { options } = requestWorkerPool({
        folder: { host: join(packageRoot(), "adapters", "tasks", "hf", "python"), inside: "/trace-bench/hf" },
        script: "hf_code_worker.py",
        size: Math.max(1, workers()),
      });
      pool = new OnDemandWorkerPool(options);
    }
    return pool;
  };
  const ask = async (message: Record<string, unknown>, timeoutS: number, signal?: AbortSignal): Promise<Record<string, unknown>> => {
    // The worker's own limit answers first; this catches a worker that never returns.
    const reply = await started().request({ message, hardTimeoutMs: (timeoutS + 15) * 1000, ...(signal ? { signal } : {}) });
    if (reply.ok !== true) throw new Error(`the code worker failed: ${(reply.error as { message?: string } | undefined)?.message ?? "no reason given"}`);
    return reply.result as Record<string, unknown>;
  };
  return {
    async run(request, signal) {
      const result = await ask({ op: "run_tests", candidate: request.candidate, test: request.test, entry_point: request.entryPoint, setup: request.setup, timeout: request.timeout }, request.timeout, signal);
      return result as unknown as UnitTestOutcome;
    },
    async extractAnswer(request, signal) {
      const result = await ask({ op: "extract_answer", code: request.code, prompt_template: request.promptTemplate, question: request.question, response: request.response, timeout: EXTRACT_TIMEOUT_S }, EXTRACT_TIMEOUT_S, signal);
      return typeof result.answer === "string" ? { answer: result.answer } : { error: String(result.error ?? "extract_answer gave no answer") };
    },
    close() {
      pool?.close();
      pool = null;
    },
  };
}

