/**
 * The runs under the dashboard's runs dir (nested folders too, as `trace-bench runs` finds them),
 * each followed by a `WatchedRun`. New run folders are picked up on the next `discover`; a log
 * that cannot be read is reported as a warning and skipped, never blocking the others.
 */
import { existsSync } from "node:fs";
import { eventsDbPath } from "../events/log-database.js";
import { runDirsUnder } from "../events/run-listing.js";
import type { RunsPayload, RunSummary } from "./api-types.js";
import { OutsideRootError, relativePosix, resolveInside } from "../fs/safe-path.js";
import { WatchedRun } from "./watched-run.js";

/** The page named a run the runs dir does not hold (HTTP 404). */
export class UnknownRunError extends Error {
  override readonly name = "UnknownRunError";
}

export class RunsIndex {
  private readonly runs = new Map<string, WatchedRun>();
  private warnings: string[] = [];

  constructor(readonly runsDir: string) {}

  /** Finds run folders (new ones included) and brings every run up to date; what changed, and whether a run went away. */
  discover(): { changed: WatchedRun[]; removed: boolean } {
    let removed = false;
    const warnings: string[] = [];
    const dirs = existsSync(this.runsDir) ? runDirsUnder(this.runsDir, warnings) : [];
    for (const dir of dirs) {
      const rel = relativePosix(this.runsDir, dir);
      if (!this.runs.has(rel)) this.runs.set(rel, new WatchedRun(dir, rel));
    }
    for (const [rel, run] of this.runs) {
      if (!existsSync(eventsDbPath(run.runDir))) {
        run.close();
        this.runs.delete(rel);
        removed = true;
      }
    }
    this.warnings = warnings;
    return { changed: this.refreshAll(), removed };
  }

  /** Reads new events of every known run; the runs whose view changed. */
  refreshAll(): WatchedRun[] {
    const changed: WatchedRun[] = [];
    const warnings: string[] = [];
    for (const run of this.runs.values()) {
      try {
        if (run.refresh()) changed.push(run);
      } catch (error) {
        warnings.push(`skipping ${run.runDir}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    this.warnings = [...new Set([...this.warnings.filter((w) => !warnings.includes(w)), ...warnings])];
    return changed;
  }

  /** The run at `relDir` (a folder relative to the runs dir), brought up to date. */
  get(relDir: string): WatchedRun {
    const dir = resolveInside(this.runsDir, relDir);
    const rel = relativePosix(this.runsDir, dir);
    if (rel === "" && relDir !== "" && relDir !== ".") throw new OutsideRootError(`'${relDir}' is not a run`);
    let run = this.runs.get(rel);
    if (run === undefined) {
      if (!existsSync(eventsDbPath(dir))) throw new UnknownRunError(`no run '${relDir}' under ${this.runsDir}`);
      run = new WatchedRun(dir, rel);
      this.runs.set(rel, run);
    }
    run.refresh();
    return run;
  }

  /** Oldest first, as `trace-bench runs` lists them. */
  payload(): RunsPayload {
    const runs: RunSummary[] = [];
    for (const run of this.runs.values()) {
      try {
        const summary = run.summary();
        if (summary !== null) runs.push(summary);
      } catch (error) {
        this.warnings.push(`skipping ${run.runDir}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    runs.sort((a, b) => (a.started_at === b.started_at ? (a.run_dir < b.run_dir ? -1 : 1) : a.started_at < b.started_at ? -1 : 1));
    return { runs_dir: this.runsDir, runs, warnings: [...new Set(this.warnings)] };
  }

  close(): void {
    for (const run of this.runs.values()) run.close();
    this.runs.clear();
  }
}
