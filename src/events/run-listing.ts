/**
 * The runs under a runs dir, found at any depth (a folder with an `events.db` is a run; other
 * folders are searched), each read from its event log without the writer lock, so listing never
 * disturbs a run in progress. A log that cannot be read (damaged, or not trace-bench's) is skipped
 * with a warning. Shared by `trace-bench runs` and the dashboard.
 *
 * Status: `running` while a live process holds the run's writer lock (`trace-bench run`), else
 * `finished` when the latest invocation recorded RunFinished, else `interrupted` (it recorded
 * RunInterrupted, or it crashed: `crashed` says which). Counts are of each job's latest attempt; a
 * job without a result is `running` or `queued` while its run is running, `not_executed` once the
 * run has stopped;
 * tokens and cost are everything billed (every attempt, replayed replies excluded), cost null when
 * a model had no price.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { EventReader, holdsRunLog, readableRuns } from "./event-reader.js";
import { llmSpending } from "./llm-spending.js";
import { ACTIVE_JOB_STATES, type RunListingFacts } from "./run-listing-facts.js";
import { RunState, type TokenTotals } from "./run-state.js";

/** Whether a live writer is a `trace-bench run` process (its run is `running`), not a replay. */
export const runsLive = (writer: ReturnType<EventReader["liveWriter"]>): boolean => writer !== null && writer.command.includes(" run");

export type RunStatus = "running" | "finished" | "interrupted";

export interface RunListing {
  readonly run_id: string;
  readonly run_dir: string;
  readonly status: RunStatus;
  /** Not finished and no RunInterrupted recorded: the process died (kill -9, crash, power loss). */
  readonly crashed: boolean;
  readonly config_hash: string;
  /** The config file's base name (null in logs written before it was recorded). */
  readonly config_name: string | null;
  readonly mode: string;
  readonly tags: readonly string[];
  readonly tasks: readonly string[];
  readonly trainers: readonly string[];
  readonly invocations: number;
  readonly started_at: string;
  readonly last_event_at: string;
  readonly jobs: Record<string, number>;
  readonly llm_calls: number;
  readonly tokens: TokenTotals;
  readonly cost_usd: number | null;
  readonly writer: { pid: number; host: string; command: string; started_at: string } | null;
}

/** Folders holding a run log under `root`, at any depth (a run's own folders are not searched). */
export function runDirsUnder(root: string, warnings: string[], depth = 0): string[] {
  if (holdsRunLog(root)) return [root];
  if (depth > 16) return [];
  const { runs, warnings: skipped } = readableRuns(root);
  warnings.push(...skipped);
  const found = runs.map((r) => join(root, r.name));
  let entries;
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const dir = join(root, entry.name);
    if (holdsRunLog(dir)) continue; // a run (listed above, or skipped with a warning)
    found.push(...runDirsUnder(dir, warnings, depth + 1));
  }
  return found;
}

/** One run read from its log: its run-level rows and each job's latest outcome (a schema-1 log: folded whole). */
export function listRun(runDir: string): RunListing | null {
  const reader = EventReader.open(runDir);
  try {
    reader.requireNoRemovedEvents();
    const facts = reader.listingFacts();
    if (facts === undefined) return runListing(runDir, RunState.fold(reader.readAfter(0)), reader.liveWriter());
    if (facts === null) return null;
    const writer = reader.liveWriter();
    return listingOfFacts(runDir, facts, writer, runsLive(writer) ? reader.activeJobCount() : 0);
  } finally {
    reader.close();
  }
}

/** A run's listing from its facts (asked of SQLite, or taken from a fold by `runListing`). */
function listingOfFacts(runDir: string, facts: RunListingFacts, writer: ReturnType<EventReader["liveWriter"]>, activeJobs: number): RunListing {
  const running = runsLive(writer);
  return {
    run_id: facts.runId,
    run_dir: runDir,
    status: running ? "running" : facts.finished ? "finished" : "interrupted",
    crashed: !running && !facts.finished && !facts.interrupted,
    config_hash: facts.configHash,
    config_name: facts.configName,
    mode: facts.mode,
    tags: [...facts.tags],
    tasks: [...facts.tasks],
    trainers: [...facts.trainers],
    invocations: facts.invocations,
    started_at: facts.startedTs,
    last_event_at: facts.lastTs,
    jobs: { matrix: facts.matrixSize, ...(running ? pendingAsLive(facts.jobs, activeJobs) : facts.jobs) },
    llm_calls: facts.llmCalls,
    tokens: facts.tokens,
    cost_usd: facts.costUsd,
    writer: writerOf(writer),
  };
}

const writerOf = (writer: ReturnType<EventReader["liveWriter"]>) =>
  writer === null ? null : { pid: writer.pid, host: writer.host, command: writer.command, started_at: writer.startedAt };

/** A running run's jobs without a result: `activeJobs` of them being worked on, the rest queued. */
function pendingAsLive(jobs: Record<string, number>, activeJobs: number): Record<string, number> {
  const { not_executed: pending = 0, ...rest } = jobs;
  const running = Math.min(pending, activeJobs);
  return { ...rest, ...(running > 0 ? { running } : {}), ...(pending > running ? { queued: pending - running } : {}) };
}

/** A run's listing from its folded state and its live writer (the dashboard keeps both up to date). */
export function runListing(runDir: string, state: RunState, writer: ReturnType<EventReader["liveWriter"]>): RunListing | null {
  const started = state.started;
  if (started === null) return null;
  const jobs: Record<string, number> = {};
  let activeJobs = 0;
  for (const job of state.orderedJobs()) {
    const status = job.finished?.status ?? "not_executed";
    jobs[status] = (jobs[status] ?? 0) + 1;
    if (job.finished === null && ACTIVE_JOB_STATES.has(job.state)) activeJobs += 1;
  }
  const spent = llmSpending(state);
  const snapshot = started.config_snapshot as { trainers?: { id?: unknown }[] };
  const facts: RunListingFacts = {
    runId: state.runId,
    configHash: started.config_hash,
    configName: state.configName,
    mode: started.mode,
    tags: started.tags,
    trainers: (snapshot.trainers ?? []).map((t) => String(t.id)),
    tasks: [...new Set(started.matrix.map((j) => j.task_id))],
    matrixSize: started.matrix.length,
    invocations: state.invocations,
    startedTs: state.startedTs,
    lastTs: state.lastTs,
    finished: state.finished,
    interrupted: state.interrupted,
    jobs,
    llmCalls: spent.calls,
    tokens: spent.tokens,
    costUsd: spent.cost,
  };
  return listingOfFacts(runDir, facts, writer, activeJobs);
}

/** Every readable run under `runsDir`, oldest first, and a warning per run that could not be read. */
export function listRuns(runsDir: string): { runs: RunListing[]; warnings: string[] } {
  const warnings: string[] = [];
  const runs: RunListing[] = [];
  for (const dir of runDirsUnder(runsDir, warnings)) {
    try {
      const listing = listRun(dir);
      if (listing !== null) runs.push(listing);
    } catch (error) {
      warnings.push(`skipping ${dir}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  runs.sort((a, b) => (a.started_at === b.started_at ? (a.run_dir < b.run_dir ? -1 : 1) : a.started_at < b.started_at ? -1 : 1));
  return { runs, warnings: [...new Set(warnings)] };
}
