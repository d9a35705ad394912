/**
 * Run-level projection files (spec §4): results.csv, summary.json, leaderboard.csv and the meta/
 * files. Each is a pure function of the folded run state.
 */
import { pythonUtcIso } from "../../codec/python-datetime.js";
import { jobIdentityFields } from "../../config/matrix.js";
import type { JobView, RunState } from "../run-state.js";
import { reportedCost, zeroCost, zeroTokens, type CostTotal, type LlmUse } from "../run-state.js";
import { aggregateCsv, aggregateRows, comparisonKey, mean, sampleStd, tidy, type AggregateRow } from "./aggregates.js";
import { jobOutcomes } from "./job-outcomes.js";
import { csvCell, csvLine, jsonArtifact } from "./artifact-format.js";
import { stateFiles, stateHistoryPath, statePath, tbDir } from "./job-paths.js";
import { jobLlmInfo } from "./job-llm-info.js";
import { FLOAT_COLUMNS, RESULT_COLUMNS, resolvedColumns, resultColumns, resultRowsOf, TOKEN_SCOPE, type ResultColumn, type ResultRow } from "./results-table.js";
import { jsonArtifactPieces, TextPieces } from "./text-pieces.js";

export const RUN_FILES = {
  config_snapshot: "meta/config.snapshot.yaml",
  env_json: "meta/env.json",
  git_json: "meta/git.json",
  manifest_json: "meta/manifest.json",
  files_index: "meta/files_index.json",
  results_csv: "results.csv",
  summary_json: "summary.json",
  leaderboard_csv: "leaderboard.csv",
  aggregate_csv: "aggregate.csv",
} as const;

/**
 * results.csv, each line rendered as it is written: a 10,000-job table is megabytes, and its lines
 * and their joined text (rendered again at every refresh of a live run) were the largest objects
 * of a big run's derived-files heap (when they had a thread of their own).
 */
export function resultsCsv(rows: Iterable<ResultRow>): TextPieces {
  const columns = resultColumns(rows);
  // The fixed columns' kinds are computed once; per-metric columns (multi-objective runs) are floats.
  const kinds = columns === RESULT_COLUMNS ? RESULT_KINDS : columns.map((_, i) => (i < RESULT_KINDS.length ? RESULT_KINDS[i]! : "float"));
  return new TextPieces(function* () {
    // A metric's name may hold a comma or a quote: header cells are quoted as any cell.
    yield csvLine(columns.map((c) => csvCell(c)));
    for (const row of rows) yield resultLine(row, columns, kinds);
  });
}

const RESULT_KINDS: readonly ("float" | "plain")[] = RESULT_COLUMNS.map((c) => (FLOAT_COLUMNS.has(c) ? "float" : "plain"));

/** One row of results.csv (a row per job, 42 cells each: a loop, no closure per row). */
function resultLine(row: ResultRow, columns: readonly string[], kinds: readonly ("float" | "plain")[]): string {
  const cells = new Array<string>(columns.length);
  const cellsOf = row as Record<string, unknown>;
  for (let i = 0; i < columns.length; i++) cells[i] = csvCell(cellsOf[columns[i]!], kinds[i]);
  return csvLine(cells);
}

export function summaryJson(state: RunState, rows: Iterable<ResultRow>, aggregates: readonly AggregateRow[] = aggregateRows(rows)): string {
  const counts: Record<string, number> = { ok: 0, failed: 0, skipped: 0 };
  const tokens = zeroTokens();
  const spent = zeroTokens();
  const cost = zeroCost();
  const spentCost = zeroCost();
  for (const job of state.jobs.values()) if (job.finished !== null) addCostTotal(cost, job.finished.cost_usd);
  let totalJobs = 0;
  let tokensEstimated = false;
  for (const row of rows) {
    totalJobs += 1;
    const status = String(row.status);
    counts[status] = (counts[status] ?? 0) + 1;
    tokens.prompt_tokens += Number(row.prompt_tokens);
    tokens.completion_tokens += Number(row.completion_tokens);
    tokens.total_tokens += Number(row.total_tokens);
    tokensEstimated ||= row.tokens_estimated === true;
  }
  for (const job of state.jobs.values()) {
    spent.prompt_tokens += job.allAttemptTokens.prompt_tokens;
    spent.completion_tokens += job.allAttemptTokens.completion_tokens;
    spent.total_tokens += job.allAttemptTokens.total_tokens;
    spentCost.usd += job.allAttemptCost.usd;
    spentCost.unknown ||= job.allAttemptCost.unknown;
  }
  const uses = (map: ReadonlyMap<string, LlmUse>) =>
    Object.fromEntries(
      [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, use]) => [key, { calls: use.calls, failed: use.failed, aborted: use.aborted, ...use.tokens, cost_usd: reportedCost(use.cost) }]),
    );
  const started = state.started;
  return jsonArtifact({
    counts,
    total_jobs: totalJobs,
    matrix_jobs: started?.matrix.length ?? 0,
    not_executed: state.orderedJobs().filter((j) => j.finished === null).length,
    // How many improved on their initial score, found no valid candidate, did no search (job ids).
    outcomes: jobOutcomes(state.orderedJobs()),
    token_totals: tokens,
    // Tokens of every attempt, including attempts that were cancelled, crashed or re-run.
    token_totals_all_attempts: spent,
    tokens_estimated: tokensEstimated,
    run_id: state.runId,
    config_hash: started?.config_hash ?? "",
    tags: started?.tags ?? [],
    token_scope: TOKEN_SCOPE,
    // USD; null when some call's model has no price in the table (never a partial sum).
    cost_usd: reportedCost(cost),
    cost_usd_all_attempts: reportedCost(spentCost),
    llm_by_model: uses(state.llmByModel),
    llm_by_role: uses(state.llmByRole),
    // Mode real's preflight requests, outside every job's totals.
    ...(state.preflight.calls > 0 ? { llm_preflight: { calls: state.preflight.calls, ...state.preflight.tokens, cost_usd: reportedCost(state.preflight.cost) } } : {}),
    // Per task × trainer × variant × optimizer × model over seeds: the rows of aggregate.csv (see aggregates.ts).
    aggregates,
    // A stub run's scores rank search procedures against seeded proposals, not models.
    ...(started?.mode === "stub" ? { llm_note: STUB_NOTE } : {}),
  });
}

function addCostTotal(into: CostTotal, cost: number | null): void {
  if (cost === null) into.unknown = true;
  else into.usd += cost;
}

const LEADERBOARD_COLUMNS = ["rank", "task_id", "suite", "job_id", "trainer_id", "resolved_optimizer", "score_val", "score_test", "time_seconds"] as const;

/** What a stub run's scores mean, in its summary and on each leaderboard row. */
export const STUB_NOTE = "mode stub: no model was called; scores rank the search procedures against the stub LLM's seeded proposals, not optimizers or models";

/** A leaderboard entry: one comparison key's ok jobs, its best seed (the reference's columns) and its mean over seeds (what ranks it). */
export interface LeaderboardEntry {
  readonly rank: number;
  /** The group's best seed (`job_id`, `score_val`, `score_test`, `time_seconds` are its). */
  readonly row: ResultRow;
  readonly n: number;
  readonly score_mean: number | null;
  readonly score_std: number | null;
}

/**
 * One entry per task × trainer × variant × optimizer × model over its ok jobs, ranked within each
 * task by the mean final score over seeds (never by the luckiest seed); equal means share a rank
 * (1, 1, 3). The row shown is the group's best seed, as the reference's columns ask.
 */
export function leaderboardRows(rows: Iterable<ResultRow>): LeaderboardEntry[] {
  // Each group keeps its best row and its scores, not its rows: a big run's table streams by once.
  const groups = new Map<string, { best: ResultRow; readonly scores: number[] }>();
  const value = (r: ResultRow) => (typeof r.score_val === "number" && !Number.isNaN(r.score_val) ? r.score_val : -Infinity);
  for (const row of rows) {
    if (row.status !== "ok" || !row.task_id) continue;
    const key = comparisonKey(row);
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { best: row, scores: [] }));
    else if (value(row) > value(group.best)) group.best = row;
    if (typeof row.score_val === "number" && Number.isFinite(row.score_val)) group.scores.push(row.score_val);
  }
  const entries = [...groups.values()].map(({ best, scores }) => ({ row: best, n: scores.length, score_mean: tidy(mean(scores)), score_std: tidy(sampleStd(scores)) }));
  const meanOf = (e: (typeof entries)[number]) => e.score_mean ?? -Infinity;
  const sorted = entries.sort((a, b) => (a.row.task_id === b.row.task_id ? meanOf(b) - meanOf(a) || 0 : String(a.row.task_id) < String(b.row.task_id) ? -1 : 1));
  const ranked: LeaderboardEntry[] = [];
  let position = 0;
  sorted.forEach((entry, i) => {
    const previous = i > 0 ? ranked[i - 1]! : null;
    const sameTask = previous !== null && previous.row.task_id === entry.row.task_id;
    position = sameTask ? position + 1 : 1;
    // Standard competition ranking: a tie shares the better rank, the next entry skips past it.
    const rank = sameTask && meanOf(entry) === meanOf(sorted[i - 1]!) ? previous.rank : position;
    ranked.push({ rank, ...entry });
  });
  return ranked;
}

const LEADERBOARD_FLOATS: ReadonlySet<string> = new Set(["score_val", "score_test", "time_seconds", "score_mean", "score_std"]);

/**
 * The leaderboard as CSV, the header alone when no job qualifies. The reference's columns (the
 * group's best seed), then `variant`, the figures that rank it (`n` ok seeds, `score_mean`,
 * `score_std`), `llm_model` and `note` (a stub run's label, else empty).
 */
export function leaderboardCsv(rows: Iterable<ResultRow>, note = ""): string {
  const columns: readonly string[] = [...LEADERBOARD_COLUMNS, "variant", "n", "score_mean", "score_std", "llm_model", "note"];
  const lines = [csvLine([...columns])];
  for (const entry of leaderboardRows(rows)) {
    const cell = (c: string): string => {
      if (c === "rank") return String(entry.rank);
      if (c === "note") return csvCell(note, "plain");
      const value = c === "n" || c === "score_mean" || c === "score_std" ? entry[c] : entry.row[c as ResultColumn];
      return csvCell(value, LEADERBOARD_FLOATS.has(c) ? "float" : "plain");
    };
    lines.push(csvLine(columns.map(cell)));
  }
  return lines.join("");
}

/** The manifest: the run's identity, then one entry per job (rendered as the file is written). */
export function manifestJson(state: RunState): TextPieces {
  const jobEntry = (job: JobView) => {
    const spec = job.spec;
    const k = spec.resolved_kwargs;
    // Each literal opens with a key of its own, not with a spread: one that opens with a spread and
    // goes on with more keys allocated several times as much per entry (V8 11; docs/performance.md:
    // ledger, 514b50e).
    const { job_id, ...identity } = jobIdentityFields(spec);
    const done = job.finished;
    if (done === null) {
      return {
        job_id,
        ...identity,
        resolved_optimizer: k.optimizer,
        resolved_guide: k.guide,
        resolved_logger: k.logger,
        resolved_trainer_kwargs: k.trainer_kwargs,
        resolved_optimizer_kwargs: k.optimizer_kwargs,
        resolved_guide_kwargs: k.guide_kwargs,
        resolved_logger_kwargs: k.logger_kwargs,
        eval_kwargs: k.eval_kwargs,
        status: "not_executed",
        skip_reason: state.notRun[spec.job_id] ?? (job.attempt > 0 ? "unfinished" : "not_run"),
      };
    }
    return {
      job_id,
      ...identity,
      ...resolvedColumns(done.resolved),
      eval_kwargs: k.eval_kwargs,
      status: done.status,
      feedback: done.feedback,
      llm: state.started === null ? {} : jobLlmInfo(state.started.llm, spec),
      token_scope: TOKEN_SCOPE,
      ...done.tokens,
      state_files: stateFiles(spec.job_id),
    };
  };
  return jsonArtifactPieces(
    { run_id: state.runId, generated_at: state.lastTs ? pythonUtcIso(new Date(state.lastTs)) : "", config_hash: state.started?.config_hash ?? "" },
    "jobs",
    () => entriesOf(state, jobEntry),
    { tags: state.started?.tags ?? [] },
  );
}

/** The files index: where every file of the run is (one entry per job, rendered as the file is written). */
export function filesIndexJson(state: RunState): TextPieces {
  // Every path is relative to the run directory (the folder holding meta/), so a run dir can be
  // moved, copied or archived and its index still holds.
  const at = (p: string) => p;
  const head = {
    run_dir: ".",
    canonical_files: Object.fromEntries(Object.entries(RUN_FILES).filter(([k]) => k !== "files_index").map(([k, p]) => [k, at(p)])),
    notes: {
      token_scope: TOKEN_SCOPE,
      execution_agent_tokens: "counted when the agent calls an LLM through trace-bench's LLM port",
      state_history_scope: "initial, one line per trainer iteration, final and best snapshots",
      event_log: at("events.db"),
      paths: "relative to the run directory (the folder that holds meta/)",
    },
  };
  const jobEntry = (job: JobView) => ({
    job_id: job.job_id,
    task_id: job.spec.task_id,
    suite: job.spec.suite,
    trainer_id: job.spec.trainer_id,
    files: {
      job_meta: at(`jobs/${job.job_id}/job_meta.json`),
      results_json: at(`jobs/${job.job_id}/results.json`),
      events_jsonl: at(`jobs/${job.job_id}/events.jsonl`),
      stdout_log: at(`jobs/${job.job_id}/stdout.log`),
      tb_dir: at(tbDir(job.job_id)),
      initial_state_yaml: at(statePath(job.job_id, "initial", "yaml")),
      best_state_yaml: at(statePath(job.job_id, "best", "yaml")),
      final_state_yaml: at(statePath(job.job_id, "final", "yaml")),
      initial_state_json: at(statePath(job.job_id, "initial", "json")),
      best_state_json: at(statePath(job.job_id, "best", "json")),
      final_state_json: at(statePath(job.job_id, "final", "json")),
      state_history_jsonl: at(stateHistoryPath(job.job_id)),
    },
  });
  return jsonArtifactPieces(head, "jobs", () => entriesOf(state, jobEntry));
}

/** Each job's entry, made when it is rendered (not all at once: a big run has thousands). */
function* entriesOf<A>(state: RunState, entry: (job: JobView) => A): Generator<A> {
  for (const job of state.orderedJobs()) yield entry(job);
}

type RunFile = (typeof RUN_FILES)[keyof typeof RUN_FILES];

/**
 * Run-level files, keyed by path relative to the run directory. `only` renders a subset: the live refresh skips the large manifest and files index.
 */
export function runFiles(state: RunState, only?: readonly RunFile[]): Map<string, string | TextPieces> {
  const files = new Map<string, string | TextPieces>();
  const started = state.started;
  if (started === null) return files;
  const wanted = (file: RunFile) => only === undefined || only.includes(file);
  // Made again by each table that reads them, one at a time: a big run's table is never held whole
  // (docs/performance.md: ledger, c5c4f2d).
  const rows = resultRowsOf(state);
  const aggregates = wanted(RUN_FILES.summary_json) || wanted(RUN_FILES.aggregate_csv) ? aggregateRows(rows) : [];
  if (wanted(RUN_FILES.config_snapshot)) files.set(RUN_FILES.config_snapshot, started.config_snapshot_yaml);
  if (wanted(RUN_FILES.env_json)) files.set(RUN_FILES.env_json, jsonArtifact(started.env, { ensureAscii: true }));
  if (wanted(RUN_FILES.git_json)) files.set(RUN_FILES.git_json, jsonArtifact(started.git, { ensureAscii: true }));
  if (wanted(RUN_FILES.results_csv)) files.set(RUN_FILES.results_csv, resultsCsv(rows));
  if (wanted(RUN_FILES.summary_json)) files.set(RUN_FILES.summary_json, summaryJson(state, rows, aggregates));
  // Always written (the header alone when no job qualifies): every path a run prints exists.
  if (wanted(RUN_FILES.leaderboard_csv)) files.set(RUN_FILES.leaderboard_csv, leaderboardCsv(rows, started.mode === "stub" ? STUB_NOTE : ""));
  if (wanted(RUN_FILES.aggregate_csv)) files.set(RUN_FILES.aggregate_csv, aggregateCsv(aggregates));
  if (wanted(RUN_FILES.manifest_json)) files.set(RUN_FILES.manifest_json, manifestJson(state));
  if (wanted(RUN_FILES.files_index)) files.set(RUN_FILES.files_index, filesIndexJson(state));
  return files;
}

/** What a live run refreshes while jobs finish: the tables people watch. */
export const LIVE_RUN_FILES: readonly RunFile[] = [RUN_FILES.results_csv, RUN_FILES.summary_json, RUN_FILES.leaderboard_csv, RUN_FILES.aggregate_csv];

/** What a run writes as soon as it starts. */
export const START_RUN_FILES: readonly RunFile[] = [RUN_FILES.config_snapshot, RUN_FILES.env_json, RUN_FILES.git_json];
