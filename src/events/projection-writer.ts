/**
 * Writes the projections of a run state into its directory: only files whose content changed,
 * each atomically, and removes generated files the state no longer produces (a re-run job whose
 * latest attempt failed before training has no state files).
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { jobFiles } from "./projections/job-files.js";
import { RUN_FILES, runFiles } from "./projections/run-files.js";
import type { JobView, RunState } from "./run-state.js";

const JOB_GENERATED = [
  "job_meta.json",
  "results.json",
  "stdout.log",
  ...["initial", "best", "final"].flatMap((w) => [`artifacts/${w}_state.json`, `artifacts/${w}_state.yaml`]),
  "artifacts/state_history.jsonl",
];

/** Every projection file of the run: run-level files and each job's files. */
export function renderProjections(state: RunState): Map<string, string> {
  const files = runFiles(state);
  for (const job of state.orderedJobs()) for (const [path, content] of jobFiles(state, job)) files.set(path, content);
  return files;
}

/** Where projection temp files live; cleared when a writer opens, so a kill -9 mid-write leaves no trace. */
export const PROJECTION_TEMP_DIR = ".tmp";

export class ProjectionWriter {
  /** What this process last wrote (or found) at each path. */
  private readonly written = new Map<string, string>();
  private readonly tempDir: string;

  constructor(readonly runDir: string) {
    this.tempDir = join(runDir, PROJECTION_TEMP_DIR);
    rmSync(this.tempDir, { recursive: true, force: true });
    mkdirSync(this.tempDir, { recursive: true });
  }

  /** The whole projection; prunes generated files that are no longer produced. */
  writeAll(state: RunState): void {
    const files = renderProjections(state);
    for (const job of state.orderedJobs()) this.ensureJobDirs(job);
    for (const [path, content] of files) this.write(path, content);
    const stale = [RUN_FILES.leaderboard_csv, ...state.orderedJobs().flatMap((job) => JOB_GENERATED.map((f) => `jobs/${job.job_id}/${f}`))];
    for (const path of stale) if (!files.has(path)) this.remove(path);
  }

  /** One job's files (cheap: for live progress). */
  writeJob(state: RunState, job: JobView): void {
    this.ensureJobDirs(job);
    for (const [path, content] of jobFiles(state, job)) this.write(path, content);
  }

  /** The run-level files only. */
  writeRunFiles(state: RunState): void {
    for (const [path, content] of runFiles(state)) this.write(path, content);
  }

  private ensureJobDirs(job: JobView): void {
    mkdirSync(join(this.runDir, "jobs", job.job_id, "artifacts"), { recursive: true });
    mkdirSync(join(this.runDir, "jobs", job.job_id, "tb"), { recursive: true });
  }

  private write(path: string, content: string): void {
    if (this.written.get(path) === content) return;
    const full = join(this.runDir, path);
    if (!this.written.has(path) && existsSync(full) && readFileSync(full, "utf8") === content) {
      this.written.set(path, content);
      return;
    }
    writeFileAtomic(full, content, this.tempDir);
    this.written.set(path, content);
  }

  private remove(path: string): void {
    this.written.delete(path);
    rmSync(join(this.runDir, path), { force: true });
  }
}
