/**
 * Progress of a run on the terminal: a live line (done/failed/running of total, elapsed, ETA)
 * when stdout is a TTY, otherwise one plain line per finished job.
 */
import { pythonFloatRepr } from "../codec/python-json.js";
import type { Subscriber } from "../events/event-bus.js";
import type { FinishedAttempt, JobFinishedData, JobView, RunState } from "../events/run-state.js";

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

  note(text: string, to: NodeJS.WritableStream = this.out): void {
    if (this.live) this.out.write("\r\x1b[2K");
    to.write(`${text}\n`);
  }

  /** The console as a subscriber of the log: one line per finished job (specs come from the run state). */
  subscriber(state: RunState): Subscriber {
    return {
      name: "console",
      handle: (events) => {
        for (const event of events) {
          if (event.type !== "JobFinished" || event.job_id === null) continue;
          const job = state.jobs.get(event.job_id);
          if (job !== undefined) this.jobFinished(job.spec, event.data, job.finished);
        }
      },
      catchUp: () => {}, // a missed line is not printed later: the reports hold every job
    };
  }

  jobFinished(spec: JobView["spec"], f: JobFinishedData, attempt: FinishedAttempt | null = null): void {
    this.done += 1;
    if (f.status === "failed" || f.status === "timeout") this.failed += 1;
    if (this.live) return this.render();
    const score = f.score_val === null ? "none" : pythonFloatRepr(f.score_val);
    // Partial LLM trouble of a job that still ended, and why a job did not end ok.
    const trouble = [
      attempt !== null && attempt.llm_errors > 0 ? `${attempt.llm_errors} LLM error${attempt.llm_errors === 1 ? "" : "s"}` : "",
      attempt !== null && attempt.unusable_replies > 0 ? `${attempt.unusable_replies} unusable repl${attempt.unusable_replies === 1 ? "y" : "ies"}` : "",
    ].filter(Boolean);
    const why = f.status === "ok" ? "" : ` — ${f.feedback.split("\n")[0]}`;
    this.out.write(
      `[${this.done}/${this.total}] ${f.status} ${spec.job_id} ${spec.task_id} x ${spec.trainer_id} (seed=${spec.seed}) score_val=${score} ${f.time_seconds.toFixed(2)}s${trouble.length > 0 ? ` (${trouble.join(", ")})` : ""}${why}\n`,
    );
  }

  private render(): void {
    const elapsed = (Date.now() - this.startedAt) / 1000;
    const eta = this.done > 0 ? ((elapsed / this.done) * (this.total - this.done)).toFixed(0) : "?";
    this.out.write(`\r\x1b[2K${this.done}/${this.total} done, ${this.failed} failed | ${elapsed.toFixed(0)}s elapsed, ETA ${eta}s`);
  }
}
