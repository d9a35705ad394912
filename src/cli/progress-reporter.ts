/**
 * Progress of a run on the terminal: a live line (done/failed/running of total, elapsed, ETA)
 * when stdout is a TTY, otherwise one plain line per finished job.
 */
import { pythonFloatRepr } from "../codec/python-json.js";
import type { JobView } from "../events/run-state.js";

export class ProgressReporter {
  private done = 0;
  private failed = 0;
  private readonly startedAt = Date.now();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly total: number,
  ) {}

  private get live(): boolean {
    return this.out.isTTY === true;
  }

  start(): void {
    if (this.live) this.timer = setInterval(() => this.render(), 250).unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    if (this.live) this.out.write("\r\x1b[2K");
  }

  /** Jobs an earlier invocation already finished (a resumed run starts counting from them). */
  alreadyDone(count: number): void {
    this.done = count;
  }

  note(text: string): void {
    if (this.live) this.out.write("\r\x1b[2K");
    this.out.write(`${text}\n`);
  }

  jobFinished(job: JobView): void {
    const f = job.finished;
    if (f === null) return;
    this.done += 1;
    if (f.status === "failed" || f.status === "timeout") this.failed += 1;
    if (this.live) return this.render();
    const score = f.score_val === null ? "none" : pythonFloatRepr(f.score_val);
    this.out.write(
      `[${this.done}/${this.total}] ${f.status} ${job.job_id} ${job.spec.task_id} x ${job.spec.trainer_id} (seed=${job.spec.seed}) score_val=${score} ${f.time_seconds.toFixed(2)}s\n`,
    );
  }

  private render(): void {
    const elapsed = (Date.now() - this.startedAt) / 1000;
    const eta = this.done > 0 ? ((elapsed / this.done) * (this.total - this.done)).toFixed(0) : "?";
    this.out.write(`\r\x1b[2K${this.done}/${this.total} done, ${this.failed} failed | ${elapsed.toFixed(0)}s elapsed, ETA ${eta}s`);
  }
}
