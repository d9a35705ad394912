/**
 * One run directory as the dashboard follows it: a read-only reader kept open and the run state
 * folded incrementally from the events committed since the last look. `refresh` costs a stat of
 * the log's files when nothing changed, so every open page can poll every run several times a
 * second. Never takes the writer lock.
 */
import { variantLabel } from "../config/variant-label.js";
import { statSync } from "node:fs";
import { EventReader } from "../events/event-reader.js";
import { eventsDbPath } from "../events/log-database.js";
import { runListing, runsLive, type RunListing } from "../events/run-listing.js";
import { ACTIVE_JOB_STATES } from "../events/run-listing-facts.js";
import { RunState } from "../events/run-state.js";
import { writerDoubt } from "./run-writer-check.js";
import type { JobState, Progress, RunSummary } from "./api-types.js";
import { TERMINAL_JOB_STATES } from "../../machines/job.machine.js";

const TERMINAL = new Set<string>(TERMINAL_JOB_STATES);

/** Size and time of the log and its WAL: they change with every commit. */
function logSignature(runDir: string): string {
  const parts: string[] = [];
  for (const path of [eventsDbPath(runDir), `${eventsDbPath(runDir)}-wal`]) {
    try {
      const s = statSync(path);
      parts.push(`${s.size}:${s.mtimeMs}`);
    } catch {
      parts.push("-");
    }
  }
  return parts.join("|");
}

export class WatchedRun {
  private reader: EventReader | null = null;
  private state = new RunState();
  private signature = "";
  /** When the latest invocation started (its RunStarted's time): the ETA counts from there. */
  private invocationStartedAt = "";
  private writer: ReturnType<EventReader["liveWriter"]> = null;
  private writerCheckedAt = 0;
  /** Whether the writer is verified as this run's (the page offers Cancel only then). */
  private writerVerified = false;
  /** Bumped whenever something the page shows changed (new events, the writer came or went). */
  version = 0;

  constructor(
    readonly runDir: string,
    readonly relDir: string,
  ) {}

  /** Reads what was committed since the last call; true when anything changed. */
  refresh(now = Date.now()): boolean {
    let changed = false;
    const signature = logSignature(this.runDir);
    if (signature !== this.signature || this.reader === null) {
      this.reader ??= EventReader.open(this.runDir);
      this.signature = signature;
      const events = this.reader.readAfter(this.state.lastSeq);
      for (const event of events) {
        if (event.type === "RunStarted") this.invocationStartedAt = event.ts;
        this.state.apply(event);
      }
      changed = events.length > 0;
    }
    // A writer that died leaves no event behind: look at the lock now and then.
    if (changed || now - this.writerCheckedAt >= 1000) {
      this.writerCheckedAt = now;
      const writer = this.reader.liveWriter();
      // Verified here (once a second at most), not per page request: it reads /proc.
      const verified = writer !== null && writerDoubt(this.runDir, writer) === null;
      if ((writer?.pid ?? null) !== (this.writer?.pid ?? null) || verified !== this.writerVerified) changed = true;
      this.writer = writer;
      this.writerVerified = verified;
    }
    if (changed) this.version += 1;
    return changed;
  }

  get run(): RunState {
    return this.state;
  }

  get lastSeq(): number {
    return this.state.lastSeq;
  }

  get liveWriter(): ReturnType<EventReader["liveWriter"]> {
    return this.writer;
  }

  /** The open reader (for a job's stream, stored texts); refresh first. */
  get log(): EventReader {
    if (this.reader === null) this.reader = EventReader.open(this.runDir);
    return this.reader;
  }

  listing(): RunListing | null {
    return runListing(this.runDir, this.state, this.writer);
  }

  summary(): RunSummary | null {
    const listing = this.listing();
    if (listing === null) return null;
    const cancellable = listing.status === "running" && this.writerVerified;
    return { ...listing, rel_dir: this.relDir, progress: this.progress(), cancellable };
  }

  progress(now = Date.now()): Progress {
    const started = this.state.started;
    const matrix = started?.matrix.map((s) => s.job_id) ?? [];
    let done = 0;
    let doneNow = 0;
    let failed = 0;
    let running = 0;
    for (const id of matrix) {
      const job = this.state.jobs.get(id);
      if (job === undefined) continue;
      const finished = job.finished !== null && job.finished.attempt === job.attempt && job.finished.status !== "cancelled";
      if (finished) {
        done += 1;
        if (job.finished!.ts >= this.invocationStartedAt) doneNow += 1;
        if (job.finished!.status === "failed" || job.finished!.status === "timeout") failed += 1;
      } else if (ACTIVE_JOB_STATES.has(job.state)) running += 1;
    }
    const total = matrix.length;
    const end = this.writer === null && this.state.lastTs !== "" ? Date.parse(this.state.lastTs) : now;
    const elapsed = this.invocationStartedAt === "" ? 0 : Math.max(0, (end - Date.parse(this.invocationStartedAt)) / 1000);
    const remaining = total - done;
    // Only a run in progress has an ETA.
    const eta = remaining === 0 ? 0 : doneNow > 0 && this.writer !== null ? Math.max(1, Math.round((elapsed / doneNow) * remaining)) : null;
    return { total, done, failed, running, percent: total === 0 ? 100 : Math.floor((100 * done) / total), eta_seconds: eta, elapsed_seconds: Math.round(elapsed) };
  }

  jobStates(): JobState[] {
    // A job not started yet waits in a running run's queue; in a stopped run it was never run.
    const notStarted = runsLive(this.writer) ? "queued" : "not started";
    return this.state.orderedJobs().map((job) => ({
      job_id: job.job_id,
      task_id: job.spec.task_id,
      trainer_id: job.spec.trainer_id,
      variant: variantLabel(job.spec.raw_params),
      seed: job.spec.seed,
      state: job.attempt === 0 && !TERMINAL.has(job.state) ? notStarted : job.state,
      attempt: job.attempt,
      status: job.finished?.status ?? null,
      score_val: job.finished?.score_val ?? null,
      last_seq: job.lastSeq,
    }));
  }

  close(): void {
    this.reader?.close();
    this.reader = null;
  }
}
