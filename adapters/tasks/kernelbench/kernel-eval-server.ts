/**
 * A client of the original's KernelBench evaluation server (`cuda_eval_server.py`): a GPU box
 * elsewhere compiles a candidate, checks it against the reference on seeded inputs and times it.
 * `POST /evaluate` queues a job (`{job_id}`); `GET /job/{id}` says `queued`, `running`, `completed`
 * or `failed`, with a `KernelExecResult` (`compiled, correctness, metadata, runtime,
 * runtime_stats`) when there is one. The job's signal stops the polling (a cancelled or timed-out
 * job waits for nothing); the server's own timeout bounds the evaluation.
 */
import { setTimeout as sleep } from "node:timers/promises";

export interface KernelExecResult {
  readonly compiled: boolean;
  readonly correctness: boolean;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Mean time of one forward pass in ms; −1 when not measured. */
  readonly runtime: number;
  readonly runtime_stats: Readonly<Record<string, unknown>>;
}

export interface KernelEvaluationRequest {
  readonly problemId: number;
  readonly sampleId: number;
  /** The candidate: a Python module defining `ModelNew`. */
  readonly customCuda: string;
  /** The reference: a Python module defining `Model`, `get_inputs`, `get_init_inputs`. */
  readonly refArchSrc: string;
  readonly level: number;
  /** The server's limit for one evaluation, in seconds. */
  readonly timeoutS: number;
}

/** What the server concluded: a result, or the evaluation's own failure (`status: failed`). */
export type KernelEvaluation =
  | { readonly status: "completed"; readonly result: KernelExecResult; readonly device: string | null }
  | { readonly status: "failed"; readonly error: string; readonly device: string | null };

/** The server cannot be used (down, an HTTP error, an answer of the wrong shape): not the candidate's doing. */
export class KernelServerError extends Error {
  override readonly name = "KernelServerError";
}

export interface KernelEvalServerOptions {
  /** Between two status requests (default: the original client's poll interval). */
  readonly pollIntervalMs?: number;
  /** How long to wait for one job before giving up on the server (default 900 s). */
  readonly waitLimitMs?: number;
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A `KernelExecResult` as either back end answers it (the server's JSON, the local evaluator's), or null when it is not one. */
export function execResultOf(value: unknown): KernelExecResult | null {
  if (!isRecord(value) || typeof value.compiled !== "boolean" || typeof value.correctness !== "boolean") return null;
  return {
    compiled: value.compiled,
    correctness: value.correctness,
    metadata: isRecord(value.metadata) ? value.metadata : {},
    runtime: typeof value.runtime === "number" ? value.runtime : -1,
    runtime_stats: isRecord(value.runtime_stats) ? value.runtime_stats : {},
  };
}

export class KernelEvalServer {
  private readonly base: string;

  constructor(
    url: string,
    private readonly options: KernelEvalServerOptions = {},
  ) {
    this.base = url.replace(/\/+$/, "");
  }

  get url(): string {
    return this.base;
  }

  private async json(path: string, init: RequestInit, signal: AbortSignal | undefined): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`${this.base}${path}`, { ...init, ...(signal ? { signal } : {}) });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
      throw new KernelServerError(`the KernelBench evaluation server at ${this.base} cannot be reached (${cause})`);
    }
    const text = await response.text();
    if (!response.ok) throw new KernelServerError(`the KernelBench evaluation server at ${this.base} answered ${init.method ?? "GET"} ${path} with HTTP ${response.status}: ${text.slice(0, 200)}`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new KernelServerError(`the KernelBench evaluation server at ${this.base} answered ${path} with something that is not JSON: ${text.slice(0, 200)}`);
    }
  }

  /** Throws `KernelServerError` unless the server answers its health route (`GET /`). */
  async check(): Promise<void> {
    await this.json("/", {}, undefined);
  }

  /** Submits the candidate and waits for the server's verdict. */
  async evaluate(request: KernelEvaluationRequest, signal?: AbortSignal): Promise<KernelEvaluation> {
    const body = {
      problem_id: request.problemId,
      sample_id: request.sampleId,
      custom_cuda: request.customCuda,
      ref_arch_src: request.refArchSrc,
      level: request.level,
      timeout: request.timeoutS,
    };
    const submitted = await this.json("/evaluate", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }, signal);
    const jobId = isRecord(submitted) ? submitted.job_id : undefined;
    if (typeof jobId !== "string" || jobId === "") throw new KernelServerError(`the KernelBench evaluation server at ${this.base} gave no job_id for POST /evaluate: ${JSON.stringify(submitted).slice(0, 200)}`);

    const pollIntervalMs = this.options.pollIntervalMs ?? 1000;
    const deadline = Date.now() + (this.options.waitLimitMs ?? 900_000);
    for (;;) {
      const job = await this.json(`/job/${encodeURIComponent(jobId)}`, {}, signal);
      if (!isRecord(job)) throw new KernelServerError(`the KernelBench evaluation server at ${this.base} answered GET /job/${jobId} with ${JSON.stringify(job).slice(0, 200)}`);
      const device = typeof job.device === "string" ? job.device : null;
      if (job.status === "failed") return { status: "failed", error: typeof job.error === "string" && job.error !== "" ? job.error : "the evaluation failed (no error given)", device };
      if (job.status === "completed") {
        const result = execResultOf(job.result);
        if (result === null) throw new KernelServerError(`the KernelBench evaluation server at ${this.base} completed job ${jobId} without a result of the expected shape (compiled, correctness, metadata, runtime, runtime_stats): ${JSON.stringify(job.result).slice(0, 200)}`);
        return { status: "completed", result, device };
      }
      if (job.status !== "queued" && job.status !== "running") throw new KernelServerError(`the KernelBench evaluation server at ${this.base} gave job ${jobId} the unknown status ${JSON.stringify(job.status)}`);
      if (Date.now() >= deadline) throw new KernelServerError(`the KernelBench evaluation server at ${this.base} did not finish job ${jobId} within ${Math.round((this.options.waitLimitMs ?? 900_000) / 1000)} s (still ${String(job.status)})`);
      try {
        await sleep(pollIntervalMs, undefined, signal ? { signal } : {});
      } catch {
        throw signal?.reason ?? new Error("aborted");
      }
    }
  }
}
