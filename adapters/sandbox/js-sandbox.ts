/**
 * Trainable JavaScript functions (a task's `code` parameters, which in mode real an LLM writes)
 * run in a pool of node processes under Node's permission model, never in the engine: a proposal
 * like `() => this.constructor.constructor("return process")()` reaches only a worker with no
 * secrets in its environment, no file access outside its own directory, no child processes, a
 * heap limit and a time limit. The pool starts on first use and is shared by all jobs of a run.
 */
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { packageRoot } from "../../src/fs/package-root.js";
import { OnDemandWorkerPool } from "./on-demand-worker-pool.js";
import { WorkerFailure } from "./worker-failure.js";

export class CodeExecutionError extends Error {
  override readonly name = "CodeExecutionError";
}

export interface JsSandboxOptions {
  /** Workers (default: the machine's cores, at most 4). */
  readonly workers?: number;
  /** V8 heap limit of each worker, MiB (default 256). */
  readonly heapMb?: number;
}

/** Node 20 calls the permission model experimental; later versions take `--permission`. */
const PERMISSION_FLAG = process.allowedNodeEnvironmentFlags.has("--permission") ? "--permission" : "--experimental-permission";

export class JsSandbox {
  private pool: OnDemandWorkerPool | null = null;

  constructor(private readonly options: JsSandboxOptions = {}) {}

  private workers(): OnDemandWorkerPool {
    const script = join(packageRoot(), "adapters", "sandbox", "js", "js-sandbox-worker.mjs");
    this.pool ??= new OnDemandWorkerPool({
      command: process.execPath,
      args: (dir) => [PERMISSION_FLAG, "--no-warnings", `--allow-fs-read=${script}`, `--allow-fs-write=${dir}`, `--max-old-space-size=${this.options.heapMb ?? 256}`, "--disable-proto=throw", script],
      size: this.options.workers ?? Math.min(4, availableParallelism()),
      env: {},
    });
    return this.pool;
  }

  /**
   * `source` (a function expression) called with `args`, in a worker; its result as plain data.
   * Throws `CodeExecutionError` (syntax error, exception, timeout, a worker killed by its limits).
   */
  async run(source: string, args: readonly unknown[], options: { readonly timeoutMs?: number; readonly signal?: AbortSignal } = {}): Promise<unknown> {
    const timeoutMs = options.timeoutMs ?? 1000;
    let reply: Record<string, unknown>;
    try {
      reply = await this.workers().request({
        message: { op: "run", source, args, timeoutMs },
        // V8 stops synchronous code at the timeout; code that escapes it (a stuck await) is killed.
        hardTimeoutMs: timeoutMs + 2000,
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      if (error instanceof WorkerFailure && error.kind !== "aborted" && error.kind !== "closed") {
        throw new CodeExecutionError(error.kind === "timeout" ? `Error: Script execution timed out after ${timeoutMs}ms (the sandbox worker was killed)` : `Error: ${error.message}`);
      }
      throw error;
    }
    if (reply.ok !== true) throw new CodeExecutionError(String(reply.error));
    return reply.value;
  }

  /** Process ids of the workers alive now (tests check none outlives its run). */
  workerPids(): number[] {
    return this.pool?.pids() ?? [];
  }

  close(): void {
    this.pool?.close();
    this.pool = null;
  }
}
