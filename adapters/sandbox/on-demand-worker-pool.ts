/**
 * A `SandboxWorkerPool` whose code (and execa, ~130 modules with its dependencies) is loaded on
 * its first request: every run builds the task suites, but only one whose tasks evaluate code
 * (LLM4AD's python workers, a trainable JavaScript proposal) starts a worker. Otherwise it behaves
 * as the pool itself: once closed, every request fails with a `closed` WorkerFailure, including one
 * that was still waiting for the module when `close()` came.
 */
import { WorkerFailure } from "./worker-failure.js";
import type { PoolOptions, PoolRequest, SandboxWorkerPool } from "./worker-pool.js";

export class OnDemandWorkerPool {
  private pool: SandboxWorkerPool | null = null;
  private loading: Promise<SandboxWorkerPool> | null = null;
  private closed = false;

  constructor(private readonly options: PoolOptions) {}

  private started(): Promise<SandboxWorkerPool> {
    this.loading ??= import("./worker-pool.js").then(({ SandboxWorkerPool }) => {
      this.pool = new SandboxWorkerPool(this.options);
      // Closed while the module was loading: the pool is born closed, like its requests.
      if (this.closed) this.pool.close();
      return this.pool;
    });
    return this.loading;
  }

  async request(request: PoolRequest): Promise<Record<string, unknown>> {
    if (this.closed) throw new WorkerFailure("closed", "the evaluation pool is closed");
    const pool = await this.started();
    if (this.closed) throw new WorkerFailure("closed", "the evaluation pool was closed");
    return pool.request(request);
  }

  /** Process ids of the workers alive now (for tests and the bench). */
  pids(): number[] {
    return this.pool?.pids() ?? [];
  }

  /** Kills every worker; later requests fail. */
  close(): void {
    this.closed = true;
    this.pool?.close();
  }
}
