/**
 * Progress of a run on the console. One line per finished job (status, job, score rounded for
 * people, time, LLM trouble, and why it did not end ok), always. On a terminal those lines scroll
 * above a live status line (done/failed/running of total, elapsed, ETA, tokens and cost so far),
 * redrawn in place with `\r\x1b[2K` and cleared before anything else is printed; the status word is
 * coloured unless `NO_COLOR` is set. Piped, there is no live line and no escape sequence.
 */
import { variantSuffix } from "../config/variant-label.js";
import type { Subscriber } from "../events/event-bus.js";
import type { FinishedAttempt, JobFinishedData, JobView, RunState } from "../events/run-state.js";
import { formatDuration, formatUsd, llmSpending, paint, reasonLine, roundForPeople, statusColor, useColor } from "./console-format.js";

/** Where the console writes: `process.stdout`, or a stand-in in tests. */
export interface ConsoleStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  /** Width of the terminal, when known: the live line is cut to fit (a wrapped line could not be redrawn). */
  readonly columns?: number;
}

export interface ProgressOptions {
  /** Decides colour (`NO_COLOR`); default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Milliseconds now; default `Date.now`. */
  readonly now?: () => number;
}

const CLEAR_LINE = "\r\x1b[2K";
const REDRAW_MS = 500;

/** What a job line says of a job whose optimizer never proposed a change. */
export const NO_SEARCH_NOTE = "no search: the optimizer never proposed a change";

/** One finished job as a console line (no newline). */
export function resultLine(
  n: number,
  total: number,
  spec: JobView["spec"],
  f: JobFinishedData,
  attempt: FinishedAttempt | null = null,
  color = false,
): string {
  // Partial LLM trouble of a job that still ended, and why a job did not end ok.
  const trouble = [
    attempt !== null && attempt.llm_errors > 0 ? `${attempt.llm_errors} LLM error${attempt.llm_errors === 1 ? "" : "s"}` : "",
    attempt !== null && attempt.unusable_replies > 0 ? `${attempt.unusable_replies} unusable repl${attempt.unusable_replies === 1 ? "y" : "ies"}` : "",
    f.no_search === true ? NO_SEARCH_NOTE : "",
  ].filter(Boolean);
  const why = f.status === "ok" ? "" : ` — ${reasonLine(f.feedback)}`;
  const status = paint(color, statusColor(f.status), f.status);
  return `[${n}/${total}] ${status} ${spec.job_id} ${spec.task_id} x ${spec.trainer_id}${variantSuffix(spec.raw_params)} (seed=${spec.seed}${spec.llm_model !== undefined ? `, model=${spec.llm_model}` : ""}) score_val=${roundForPeople(f.score_val)} ${f.time_seconds.toFixed(2)}s${trouble.length > 0 ? ` (${trouble.join(", ")})` : ""}${why}`;
}

export class ProgressReporter {
  /** Finished jobs, those an earlier invocation finished included. */
  private done = 0;
  /** Finished in this invocation (what the ETA is estimated from). */
  private doneNow = 0;
  private failed = 0;
  /** Jobs started and not yet finished in this invocation. */
  private readonly running = new Set<string>();
  private state: RunState | null = null;
  private readonly now: () => number;
  private readonly startedAt: number;
  private readonly color: boolean;
  private timer: NodeJS.Timeout | null = null;
  /** Whether the live line is on the screen (the cursor is at its end). */
  private shown = false;

  constructor(
    private readonly out: ConsoleStream,
    private readonly total: number,
    options: ProgressOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
    this.color = useColor(out, options.env ?? process.env);
  }

  private get live(): boolean {
    return this.out.isTTY === true;
  }

  start(): void {
    if (!this.live) return;
    this.render();
    this.timer = setInterval(() => this.render(), REDRAW_MS).unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.clear();
  }

  /** Jobs an earlier invocation already finished (a resumed run starts counting from them). */
  alreadyDone(count: number): void {
    this.done = count;
  }

  /** A line of its own (a warning, a signal): printed above the live line, which is then redrawn. */
  note(text: string, to: NodeJS.WritableStream | ConsoleStream = this.out): void {
    this.clear();
    to.write(`${text}\n`);
    if (this.timer !== null) this.render();
  }

  /** The console as a subscriber of the log: running jobs, one line per finished job (specs come from the run state), LLM use. */
  subscriber(state: RunState): Subscriber {
    this.state = state;
    return {
      name: "console",
      handle: (events) => {
        let changed = false;
        // A committed group may finish many jobs: their lines go out in one write.
        const lines: string[] = [];
        for (const event of events) {
          if (event.job_id === null) continue;
          if (event.type === "JobQueued") {
            this.running.add(event.job_id);
            changed = true;
          } else if (event.type === "JobFinished") {
            this.running.delete(event.job_id);
            const job = state.jobs.get(event.job_id);
            if (job !== undefined) lines.push(this.count(job.spec, event.data, job.finished));
            changed = true;
          }
        }
        if (lines.length > 0) {
          this.clear();
          this.out.write(lines.join(""));
        }
        if (changed && this.timer !== null) this.render();
      },
      // A missed result line is not printed later (the reports hold every job); the running jobs are recounted.
      catchUp: () => {
        for (const id of [...this.running]) {
          const view = state.jobs.get(id);
          if (view === undefined || (view.finished !== null && view.finished.attempt === view.attempt)) this.running.delete(id);
        }
      },
    };
  }

  /** Counts a finished job; returns its console line (with the newline). */
  private count(spec: JobView["spec"], f: JobFinishedData, attempt: FinishedAttempt | null): string {
    this.done += 1;
    this.doneNow += 1;
    if (f.status === "failed" || f.status === "timeout") this.failed += 1;
    return `${resultLine(this.done, this.total, spec, f, attempt, this.color)}\n`;
  }

  /** The live line's text (no escape sequences). */
  statusLine(): string {
    const elapsed = (this.now() - this.startedAt) / 1000;
    const remaining = Math.max(0, this.total - this.done);
    // Never "0s" while a job is left: the rate of the jobs finished so far, at least a second.
    const eta = remaining === 0 ? "0s" : this.doneNow > 0 ? formatDuration(Math.max(1, (elapsed / this.doneNow) * remaining)) : "?";
    const parts = [`${this.done}/${this.total} done, ${this.failed} failed, ${this.running.size} running`, `${formatDuration(elapsed)} elapsed, ETA ${eta}`];
    const spent = this.state === null ? null : llmSpending(this.state);
    if (spent !== null && spent.calls + spent.failed + spent.aborted > 0) {
      parts.push(`${spent.tokens.total_tokens} tokens, ${spent.cost === null ? "cost unknown" : formatUsd(spent.cost)}`);
    }
    return parts.join(" | ");
  }

  private render(): void {
    if (!this.live) return;
    let line = this.statusLine();
    // A line wider than the terminal wraps, and `\r\x1b[2K` would clear only its last row.
    const width = this.out.columns;
    if (width !== undefined && width > 1 && line.length > width - 1) line = `${line.slice(0, width - 2)}…`;
    this.out.write(`${CLEAR_LINE}${line}`);
    this.shown = true;
  }

  private clear(): void {
    if (!this.shown) return;
    this.out.write(CLEAR_LINE);
    this.shown = false;
  }
}
