/**
 * A pool of long-lived sandbox workers (child processes started with execa: LLM4AD's python3
 * templates, each in bubblewrap, see python-sandbox.ts) that evaluate candidate code, shared by every
 * job of a run. Each worker speaks JSON lines on stdin/stdout (its first line says it is ready),
 * works in a temporary directory of its own with an allowlisted environment, and handles
 * one request at a time. A request that runs past its hard deadline, or whose caller aborts, kills
 * its worker (the candidate's work stops with it); a worker that dies is replaced on the next
 * request. `close()` kills every worker; none outlives its run (workers also die with the engine:
 * their stdin closes, and python workers ask Linux to kill them).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { execa, type ResultPromise } from "execa";
import { WorkerFailure } from "./worker-failure.js";

export interface PoolOptions {
  /** The program (python3, node's path). */
  readonly command: string;
  /** Its arguments, given the worker's own directory (which a permission flag may name). */
  readonly args: (dir: string) => readonly string[];
  /** Workers at most (started on demand). */
  readonly size: number;
  readonly env: Readonly<Record<string, string>>;
  /** What workers write outside the protocol (task modules' prints, C libraries, crashes). */
  readonly onStderr?: (text: string) => void;
}

export interface PoolRequest {
  readonly message: Record<string, unknown>;
  /** Kill the worker if no answer comes by then (ms). */
  readonly hardTimeoutMs: number;
  readonly signal?: AbortSignal;
  /** A worker this request would rather use (it has the job's instances loaded). */
  readonly affinity?: string;
}

interface Pending {
  resolve(reply: Record<string, unknown>): void;
  reject(error: WorkerFailure): void;
}

class Worker {
  readonly loaded = new Set<string>();
  busy = false;
  dead = false;
  private pending: Pending | null = null;
  private stderrTail = "";
  private readonly ready: Promise<void>;

  get pid(): number | undefined {
    return this.process.pid;
  }

  constructor(
    private readonly process: ResultPromise,
    private readonly dir: string,
    command: string,
    onStderr: ((text: string) => void) | undefined,
  ) {
    let markReady!: () => void;
    let failReady!: (error: WorkerFailure) => void;
    this.ready = new Promise((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    this.ready.catch(() => {});
    const lines = createInterface({ input: process.stdout! });
    lines.on("line", (line) => {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line) as Record<string, unknown>;
      } catch {
        onStderr?.(`worker protocol: unreadable line ${line.slice(0, 200)}`);
        return;
      }
      if (message.ready === true) return markReady();
      const pending = this.pending;
      this.pending = null;
      pending?.resolve(message);
    });
    process.stderr!.setEncoding("utf8");
    process.stderr!.on("data", (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-4000);
      onStderr?.(chunk);
    });
    // execa's promise settles when the worker ends: exited, killed, or never started (no python3).
    const ended = (result: { exitCode?: number | undefined; signal?: string | undefined; code?: string | undefined }) => {
      this.dead = true;
      const how = result.code === "ENOENT" ? `${command} was not found on PATH` : `the ${command} worker exited (${result.signal ?? `code ${String(result.exitCode)}`})`;
      const why = new WorkerFailure(result.code === "ENOENT" ? "unavailable" : "crashed", `${how}${this.stderrTail ? `: ${this.stderrTail.trim().split("\n").slice(-3).join(" | ")}` : ""}`);
      failReady(why);
      const pending = this.pending;
      this.pending = null;
      pending?.reject(why);
      rmSync(this.dir, { recursive: true, force: true });
    };
    process.then(ended, ended);
  }

  async send(message: Record<string, unknown>): Promise<Record<string, unknown>> {
    await this.ready;
    // One request at a time: the protocol answers in order, and a second would orphan the first.
    if (this.pending !== null) throw new Error("sandbox worker: a request is already in flight");
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.process.stdin!.write(`${JSON.stringify(message)}\n`);
    });
  }

  kill(reason: WorkerFailure): void {
    if (this.dead) return;
    this.dead = true;
    const pending = this.pending;
    this.pending = null;
    pending?.reject(reason);
    this.process.kill("SIGKILL");
  }
}

export class SandboxWorkerPool {
  private readonly workers: Worker[] = [];
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  constructor(private readonly options: PoolOptions) {}

  /** Process ids of the workers alive now (for tests and the bench). */
  pids(): number[] {
    return this.workers.filter((w) => !w.dead && w.pid !== undefined).map((w) => w.pid!);
  }

  private spawn(): Worker {
    const dir = mkdtempSync(join(tmpdir(), "trace-bench-eval-"));
    const child = execa(this.options.command, [...this.options.args(dir)], {
      cwd: dir,
      env: this.options.env,
      extendEnv: false,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      buffer: false,
      cleanup: true,
    });
    return new Worker(child, dir, this.options.command, this.options.onStderr);
  }

  /** An idle worker (the preferred one when idle), starting one if the pool has room; else wait. */
  private async acquire(affinity: string | undefined, signal: AbortSignal | undefined): Promise<Worker> {
    for (;;) {
      if (this.closed) throw new WorkerFailure("closed", "the evaluation pool is closed");
      signal?.throwIfAborted();
      for (let i = this.workers.length - 1; i >= 0; i--) if (this.workers[i]!.dead) this.workers.splice(i, 1);
      const idle = this.workers.filter((w) => !w.busy);
      // The worker that has the job's instances, else any idle one (warm beats cold), else a new one.
      const chosen = (affinity !== undefined ? idle.find((w) => w.loaded.has(affinity)) : undefined) ?? idle[0];
      // Taken before returning: another request in the same tick must not pick the same worker.
      if (chosen !== undefined) {
        chosen.busy = true;
        return chosen;
      }
      if (this.workers.length < this.options.size) {
        const worker = this.spawn();
        worker.busy = true;
        this.workers.push(worker);
        return worker;
      }
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(signal!.reason);
        signal?.addEventListener("abort", onAbort, { once: true });
        this.waiting.push(() => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        });
      });
    }
  }

  private release(worker: Worker): void {
    worker.busy = false;
    this.waiting.shift()?.();
  }

  async request(request: PoolRequest): Promise<Record<string, unknown>> {
    const { signal } = request;
    const worker = await this.acquire(request.affinity, signal);
    const onAbort = () => worker.kill(new WorkerFailure("aborted", "the evaluation was cancelled"));
    signal?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(
      () => worker.kill(new WorkerFailure("timeout", `no answer within ${Math.round(request.hardTimeoutMs / 1000)} s: the worker was killed and is replaced`)),
      request.hardTimeoutMs,
    );
    try {
      const reply = await worker.send(request.message);
      if (request.affinity !== undefined) worker.loaded.add(request.affinity);
      return reply;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      this.release(worker);
    }
  }

  /** Kills every worker (their temporary directories are removed as they exit). */
  close(): void {
    this.closed = true;
    for (const worker of this.workers) worker.kill(new WorkerFailure("closed", "the evaluation pool was closed"));
    this.workers.length = 0;
    for (const wake of this.waiting.splice(0)) wake();
  }
}
