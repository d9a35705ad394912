/**
 * What `trace-bench runs` shows of a run, asked of SQLite instead of folding the log: the run
 * stream's rows (its starts, interruptions and finishes), each job's latest outcome found through
 * the stream index, and the LLM calls' totals. A fold decoded every event of every job (figures in
 * docs/performance.md); these queries hold a row at a time, so memory stays flat in the size of the run. They give what a fold's `RunState` gives `runListing` (run-listing.ts).
 */
import type Database from "better-sqlite3";
import type { ActiveJobState } from "../../machines/job.machine.js";
import { EventLogCorruptError } from "./event-log-errors.js";
import { missingStartProblem } from "./log-checks.js";
import type { TokenTotals } from "./run-state.js";
import { reportedCost, zeroTokens } from "./run-state.js";

export interface RunListingFacts {
  readonly runId: string;
  /** Fields of the latest RunStarted (its matrix summarised). */
  readonly configHash: string;
  readonly configName: string | null;
  readonly mode: string;
  readonly tags: readonly string[];
  readonly trainers: readonly string[];
  /** Task ids of the latest matrix, each once, in matrix order. */
  readonly tasks: readonly string[];
  readonly matrixSize: number;
  readonly invocations: number;
  readonly startedTs: string;
  readonly lastTs: string;
  readonly finished: boolean;
  readonly interrupted: boolean;
  /** Every job of any invocation's matrix, by the status of its latest finished attempt (`not_executed` if none). */
  readonly jobs: Record<string, number>;
  readonly llmCalls: number;
  readonly tokens: TokenTotals;
  readonly costUsd: number | null;
}

/** The job machine's states in which a job is being worked on (a type import: listing runs loads no XState). */
export const ACTIVE_JOB_STATES: ReadonlySet<string> = new Set<ActiveJobState>(["building", "training", "evaluating"]);

/** Status of a job with no finished attempt. */
const NOT_EXECUTED = "not_executed";

/**
 * The listing facts of the log in `db` (schema 2: `source` is the events table); null when no
 * run started in it. Throws `EventLogCorruptError` for events without a RunStarted.
 */
export function runListingFacts(db: Database.Database, path: string): RunListingFacts | null {
  const latest = db
    .prepare(
      "SELECT run_id, ts, json_extract(data, '$.config_hash') AS config_hash, json_extract(data, '$.mode') AS mode, json_extract(data, '$.tags') AS tags, " +
        "json_extract(data, '$.config_snapshot.trainers') AS trainers, json_array_length(data, '$.matrix') AS matrix_size, json_extract(data, '$.invocation') AS invocation " +
        "FROM events WHERE stream = 'run' AND type = 'RunStarted' ORDER BY position DESC LIMIT 1",
    )
    .get() as { run_id: string; config_hash: unknown; mode: unknown; tags: string | null; trainers: string | null; matrix_size: number | null; invocation: unknown } | undefined;
  if (latest === undefined) {
    if (db.prepare("SELECT 1 FROM events LIMIT 1").get() === undefined) return null;
    throw new EventLogCorruptError({ path, problem: missingStartProblem(path) });
  }
  const first = db.prepare("SELECT ts FROM events WHERE stream = 'run' AND type = 'RunStarted' ORDER BY position LIMIT 1").pluck().get() as string;
  const lastRunType = db.prepare("SELECT type FROM events WHERE stream = 'run' ORDER BY position DESC LIMIT 1").pluck().get() as string;
  const last = db.prepare("SELECT run_id, ts FROM events ORDER BY seq DESC LIMIT 1").get() as { run_id: string; ts: string };
  const configName = db
    .prepare("SELECT json_extract(data, '$.config_name') FROM events WHERE stream = 'run' AND type = 'RunStarted' AND json_extract(data, '$.config_name') IS NOT NULL ORDER BY position DESC LIMIT 1")
    .pluck()
    .get() as string | undefined;
  const tasks = db
    .prepare(
      "SELECT json_extract(m.value, '$.task_id') AS task FROM (SELECT data FROM events WHERE stream = 'run' AND type = 'RunStarted' ORDER BY position DESC LIMIT 1) AS r, json_each(r.data, '$.matrix') AS m " +
        "GROUP BY task ORDER BY min(m.key)",
    )
    .pluck()
    .all() as string[];
  const trainers = latest.trainers === null ? [] : (JSON.parse(latest.trainers) as { id?: unknown }[]).map((t) => String(t.id));
  return {
    runId: last.run_id,
    configHash: String(latest.config_hash),
    configName: configName ?? null,
    mode: String(latest.mode),
    tags: latest.tags === null ? [] : (JSON.parse(latest.tags) as string[]),
    trainers,
    tasks,
    matrixSize: latest.matrix_size ?? 0,
    invocations: Number(latest.invocation),
    startedTs: first,
    lastTs: last.ts,
    finished: lastRunType === "RunFinished",
    interrupted: lastRunType === "RunInterrupted",
    jobs: jobCounts(db, latest.matrix_size ?? 0),
    ...llmTotals(db),
  };
}

/**
 * Jobs of every matrix by the status of their latest finished attempt: each job stream is read
 * backwards through the stream index to its last JobFinished (for a finished job, its last row);
 * the jobs no stream has never ran. Invocations of one config have the same matrix; only when
 * they differ are the matrices' job ids read, to count the jobs of all of them once.
 */
function jobCounts(db: Database.Database, latestMatrixSize: number): Record<string, number> {
  const starts = db.prepare("SELECT count(*) FROM events WHERE stream = 'run' AND type = 'RunStarted'").pluck().get() as number;
  const matrices = starts <= 1 ? starts : (db.prepare("SELECT count(DISTINCT json_extract(data, '$.matrix')) FROM events WHERE stream = 'run' AND type = 'RunStarted'").pluck().get() as number);
  const total =
    matrices <= 1
      ? latestMatrixSize
      : (db
          .prepare("SELECT count(DISTINCT json_extract(m.value, '$.job_id')) FROM events AS r, json_each(r.data, '$.matrix') AS m WHERE r.stream = 'run' AND r.type = 'RunStarted'")
          .pluck()
          .get() as number);
  const rows = db
    .prepare(
      "SELECT (SELECT json_extract(e.data, '$.status') FROM events AS e WHERE e.stream = s.stream AND e.type = 'JobFinished' ORDER BY e.position DESC LIMIT 1) AS status, count(*) AS n " +
        "FROM (SELECT DISTINCT stream FROM events WHERE stream != 'run') AS s GROUP BY status",
    )
    .all() as { status: string | null; n: number }[];
  const jobs: Record<string, number> = {};
  let finished = 0;
  for (const { status, n } of rows) {
    if (status === null) continue;
    jobs[status] = n;
    finished += n;
  }
  if (total > finished) jobs[NOT_EXECUTED] = total - finished;
  return jobs;
}

/**
 * Billed LLM use over every attempt (replayed replies excluded), summed as the fold sums it: per
 * model in log order, then over the models in the order they first appear (so the cost rounds
 * the same).
 */
function llmTotals(db: Database.Database): { llmCalls: number; tokens: TokenTotals; costUsd: number | null } {
  const byModel = new Map<string, { calls: number; tokens: TokenTotals; usd: number; unknown: boolean }>();
  const rows = db
    .prepare(
      "SELECT type, json_extract(data, '$.model') AS model, json_extract(data, '$.prompt_tokens') AS p, json_extract(data, '$.completion_tokens') AS c, " +
        "json_extract(data, '$.total_tokens') AS t, json_extract(data, '$.cost_usd') AS cost, json_extract(data, '$.replayed') AS replayed " +
        "FROM events WHERE type IN ('LlmCallCompleted', 'LlmCallFailed', 'LlmCallAborted') ORDER BY seq",
    )
    .iterate() as IterableIterator<{ type: string; model: string; p: number; c: number; t: number; cost: unknown; replayed: unknown }>;
  for (const row of rows) {
    if (row.type === "LlmCallCompleted" && row.replayed === 1) continue;
    let use = byModel.get(row.model);
    if (use === undefined) byModel.set(row.model, (use = { calls: 0, tokens: zeroTokens(), usd: 0, unknown: false }));
    if (row.type !== "LlmCallCompleted") continue;
    use.calls += 1;
    use.tokens.prompt_tokens += row.p;
    use.tokens.completion_tokens += row.c;
    use.tokens.total_tokens += row.t;
    if (typeof row.cost === "number") use.usd += row.cost;
    else use.unknown = true;
  }
  let llmCalls = 0;
  let usd = 0;
  let unknown = false;
  const tokens = zeroTokens();
  for (const use of byModel.values()) {
    llmCalls += use.calls;
    tokens.prompt_tokens += use.tokens.prompt_tokens;
    tokens.completion_tokens += use.tokens.completion_tokens;
    tokens.total_tokens += use.tokens.total_tokens;
    usd += use.usd;
    unknown ||= use.unknown;
  }
  return { llmCalls, tokens, costUsd: reportedCost({ usd, unknown }) };
}

/**
 * Job streams whose latest row is a transition into one of `activeStates` (a running run's jobs
 * being worked on); read only while a run runs, two index lookups per job stream.
 */
export function activeJobCount(db: Database.Database, activeStates: ReadonlySet<string> = ACTIVE_JOB_STATES): number {
  const latest = db.prepare(
    "SELECT l.type, json_extract(l.data, '$.to') AS state FROM (SELECT DISTINCT stream FROM events WHERE stream != 'run') AS s " +
      "JOIN events AS l ON l.stream = s.stream AND l.position = (SELECT max(position) FROM events AS e WHERE e.stream = s.stream)",
  ).iterate() as IterableIterator<{ type: string; state: unknown }>;
  let active = 0;
  for (const row of latest) if (row.type === "JobTransitioned" && activeStates.has(String(row.state))) active += 1;
  return active;
}
