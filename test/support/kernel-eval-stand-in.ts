/**
 * A stand-in for the original's KernelBench evaluation server (`cuda_eval_server.py`) on
 * 127.0.0.1: the same routes and JSON shapes (`POST /evaluate` → `{job_id, status: "queued"}`,
 * `GET /job/{id}` → `{job_id, status, result, error, device, queued_at, started_at,
 * completed_at}`), with a job that is `queued`, then `running`, then done, and results recorded by
 * the test per candidate instead of a GPU. Every submitted request is kept.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";

export interface SubmittedEvaluation {
  readonly problem_id: number;
  readonly sample_id: number;
  readonly custom_cuda: string;
  readonly ref_arch_src: string;
  readonly level: number | null;
  readonly timeout: number | null;
}

/** What the stand-in answers for one candidate: a KernelExecResult, or the job's failure. */
export type StandInVerdict = { readonly result: Record<string, unknown> } | { readonly error: string };

export interface KernelEvalStandIn {
  readonly url: string;
  readonly submitted: SubmittedEvaluation[];
  /** Status requests received, all jobs together. */
  readonly polls: () => number;
  close(): Promise<void>;
}

export interface StandInOptions {
  /** The verdict for a submitted candidate. */
  readonly verdict: (request: SubmittedEvaluation) => StandInVerdict;
  /** Status requests answered `queued`/`running` before the verdict (default 2). */
  readonly pollsBeforeDone?: number;
  /** Answer every request with this HTTP status instead (a broken server). */
  readonly httpStatus?: number;
}

export function kernelEvalStandIns(): (options: StandInOptions) => Promise<KernelEvalStandIn> {
  const open: Server[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  });
  return async (options) => {
    const submitted: SubmittedEvaluation[] = [];
    const jobs = new Map<string, { request: SubmittedEvaluation; polls: number; queuedAt: number }>();
    let polls = 0;
    const server = createServer((req, res) => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      let raw = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => (raw += chunk));
      req.on("end", () => {
        if (options.httpStatus !== undefined) return send(options.httpStatus, { detail: "Device manager not initialized" });
        if (req.method === "GET" && req.url === "/") return send(200, { message: "CUDA Evaluation Server is running" });
        if (req.method === "POST" && req.url === "/evaluate") {
          const request = JSON.parse(raw) as SubmittedEvaluation;
          submitted.push(request);
          const jobId = `job_${submitted.length}_${Math.floor(Date.now() / 1000)}`;
          jobs.set(jobId, { request, polls: 0, queuedAt: Date.now() / 1000 });
          return send(200, { job_id: jobId, status: "queued" });
        }
        const match = req.method === "GET" ? /^\/job\/([^/]+)$/.exec(req.url ?? "") : null;
        const job = match ? jobs.get(decodeURIComponent(match[1]!)) : undefined;
        if (match && job === undefined) return send(404, { detail: "Job not found" });
        if (job === undefined) return send(404, { detail: "Not Found" });
        polls += 1;
        job.polls += 1;
        const base = { job_id: match![1], device: "cuda:0", queued_at: job.queuedAt, started_at: job.queuedAt, completed_at: null, result: null, error: null };
        if (job.polls <= (options.pollsBeforeDone ?? 2)) return send(200, { ...base, status: job.polls === 1 ? "queued" : "running", device: job.polls === 1 ? null : "cuda:0" });
        const verdict = options.verdict(job.request);
        const completedAt = Date.now() / 1000;
        if ("error" in verdict) return send(200, { ...base, status: "failed", error: verdict.error, completed_at: completedAt });
        return send(200, { ...base, status: "completed", result: verdict.result, completed_at: completedAt });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    open.push(server);
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      submitted,
      polls: () => polls,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  };
}

/** A KernelExecResult as KernelBench writes one. */
export function execResult(fields: { compiled: boolean; correctness: boolean; runtime?: number; metadata?: Record<string, unknown> }): Record<string, unknown> {
  const runtime = fields.runtime ?? -1;
  return {
    compiled: fields.compiled,
    correctness: fields.correctness,
    metadata: { hardware: "NVIDIA H100", device: "0", ...fields.metadata },
    runtime,
    runtime_stats: runtime > 0 ? { mean: runtime, std: runtime / 50, min: runtime * 0.97, max: runtime * 1.05, num_trials: 100 } : {},
  };
}
