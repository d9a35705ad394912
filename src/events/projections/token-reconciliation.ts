/**
 * Checks the token and cost columns of results.csv and summary.json against the calls in the
 * event log, derived here independently of RunState (per call record, by attempt number), so a
 * projection bug or a hand-edited file shows up as a named mismatch.
 *
 * What the files hold, recomputed: a results row is the job's latest *finished* attempt (the
 * attempt of its latest JobFinished): its answered calls, replayed included (what that result
 * used); summary.json `token_totals` and `cost_usd` sum those rows; `*_all_attempts` and
 * `llm_by_model` / `llm_by_role` count what was billed (completed, non-replayed calls of every
 * attempt).
 */
import type { StoredEvent } from "../event-schema.js";
import { reportedCost, zeroCost, type CostTotal } from "../run-state.js";
import { llmCallRecords, type LlmCallRecord } from "./llm-call-records.js";
import { addCallCost, matrixJobs } from "./token-audit.js";

export type CheckedValue = number | string | null;

export interface Mismatch {
  readonly file: "results.csv" | "summary.json";
  /** The job of a results row; null for run-level values. */
  readonly job_id: string | null;
  /** The column or JSON path. */
  readonly column: string;
  /** What the event log says. */
  readonly events: CheckedValue;
  /** What the file says. */
  readonly found: CheckedValue;
}

export type FileState = "checked" | "missing" | "unreadable";

export interface Reconciliation {
  readonly results_csv: FileState;
  readonly summary_json: FileState;
  readonly mismatches: readonly Mismatch[];
}

/** A file as the caller read it: absent (the run is still going or crashed), unreadable, or its content. */
export type FileRead<T> = { readonly state: "missing" } | { readonly state: "unreadable"; readonly problem: string } | { readonly state: "read"; readonly value: T };

export interface RunFilesRead {
  readonly resultsCsv: FileRead<readonly Record<string, string>[]>;
  readonly summaryJson: FileRead<Record<string, unknown>>;
}

/** The results columns this check recomputes from the calls. */
export const RECONCILED_COLUMNS = ["prompt_tokens", "completion_tokens", "total_tokens", "llm_calls", "llm_errors", "replayed_calls", "cost_usd"] as const;
type Row = Record<(typeof RECONCILED_COLUMNS)[number], number | null>;

const USE_FIELDS = ["calls", "failed", "aborted", "prompt_tokens", "completion_tokens", "total_tokens", "cost_usd"] as const;
type Use = Record<(typeof USE_FIELDS)[number], number | null>;

/** What results.csv should hold per finished job, from the calls of its latest finished attempt. */
export function expectedRows(events: readonly StoredEvent[], records: readonly LlmCallRecord[] = llmCallRecords(events)): Map<string, Row> {
  const finishedAttempt = new Map<string, number>();
  for (const e of events) if (e.type === "JobFinished" && e.job_id !== null) finishedAttempt.set(e.job_id, e.data.attempt);
  const rows = new Map<string, Row & { cost: CostTotal }>();
  for (const [jobId] of finishedAttempt) {
    rows.set(jobId, { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, llm_calls: 0, llm_errors: 0, replayed_calls: 0, cost_usd: 0, cost: zeroCost() });
  }
  for (const r of records) {
    const row = rows.get(r.job_id);
    if (row === undefined || finishedAttempt.get(r.job_id) !== r.attempt) continue;
    if (r.outcome === "failed") row.llm_errors! += 1;
    if (r.completed === null) continue;
    row.llm_calls! += 1;
    if (r.outcome === "replayed") row.replayed_calls! += 1;
    row.prompt_tokens! += r.completed.prompt_tokens;
    row.completion_tokens! += r.completed.completion_tokens;
    row.total_tokens! += r.completed.total_tokens;
    addCallCost(row.cost, r.completed);
  }
  // A job without answered calls costs 0, known (results-table's rule).
  return new Map([...rows].map(([id, { cost, ...row }]) => [id, { ...row, cost_usd: row.llm_calls === 0 ? 0 : reportedCost(cost) }]));
}

interface ExpectedSummary {
  token_totals: Record<"prompt_tokens" | "completion_tokens" | "total_tokens", number>;
  token_totals_all_attempts: Record<"prompt_tokens" | "completion_tokens" | "total_tokens", number>;
  cost_usd: number | null;
  cost_usd_all_attempts: number | null;
  llm_by_model: Map<string, Use>;
  llm_by_role: Map<string, Use>;
}

function expectedSummary(records: readonly LlmCallRecord[], rows: ReadonlyMap<string, Row>): ExpectedSummary {
  const tokenTotals = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  const rowsCost = zeroCost();
  for (const row of rows.values()) {
    tokenTotals.prompt_tokens += row.prompt_tokens!;
    tokenTotals.completion_tokens += row.completion_tokens!;
    tokenTotals.total_tokens += row.total_tokens!;
    if (row.cost_usd === null) rowsCost.unknown = true;
    else rowsCost.usd += row.cost_usd;
  }
  const billed = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  const billedCost = zeroCost();
  const uses = { model: new Map<string, Use & { cost: CostTotal }>(), role: new Map<string, Use & { cost: CostTotal }>() };
  const useOf = (map: Map<string, Use & { cost: CostTotal }>, key: string) => {
    let use = map.get(key);
    if (use === undefined) map.set(key, (use = { calls: 0, failed: 0, aborted: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cost_usd: null, cost: zeroCost() }));
    return use;
  };
  for (const r of records) {
    // The summary's by-model/role counts know nothing of lost calls, nor of replayed ones.
    if (r.outcome === "lost" || r.outcome === "replayed") continue;
    for (const use of [useOf(uses.model, r.model), useOf(uses.role, r.role)]) {
      if (r.outcome === "failed") use.failed! += 1;
      if (r.outcome === "aborted") use.aborted! += 1;
      if (r.completed === null) continue;
      use.calls! += 1;
      use.prompt_tokens! += r.completed.prompt_tokens;
      use.completion_tokens! += r.completed.completion_tokens;
      use.total_tokens! += r.completed.total_tokens;
      addCallCost(use.cost, r.completed);
    }
    if (r.completed === null) continue;
    billed.prompt_tokens += r.completed.prompt_tokens;
    billed.completion_tokens += r.completed.completion_tokens;
    billed.total_tokens += r.completed.total_tokens;
    addCallCost(billedCost, r.completed);
  }
  const finish = (map: Map<string, Use & { cost: CostTotal }>) => new Map([...map].map(([k, { cost, ...use }]) => [k, { ...use, cost_usd: reportedCost(cost) }]));
  return {
    token_totals: tokenTotals,
    token_totals_all_attempts: billed,
    cost_usd: reportedCost(rowsCost),
    cost_usd_all_attempts: reportedCost(billedCost),
    llm_by_model: finish(uses.model),
    llm_by_role: finish(uses.role),
  };
}

/** A CSV cell as a number: "" is null (no value), anything unreadable stays text. */
function cellValue(cell: string | undefined): CheckedValue {
  if (cell === undefined || cell === "") return null;
  const n = Number(cell);
  return Number.isFinite(n) ? n : cell;
}

function jsonValue(value: unknown): CheckedValue {
  if (value === undefined) return "(absent)";
  if (value === null || typeof value === "number" || typeof value === "string") return value;
  return JSON.stringify(value);
}

/** Costs are summed in another order by the projections: equal within rounding (reported to 1e-8). */
function same(expected: CheckedValue, found: CheckedValue): boolean {
  if (typeof expected === "number" && typeof found === "number") return Math.abs(expected - found) <= Math.max(2e-8, Math.abs(expected) * 1e-9);
  return expected === found;
}

export function reconcile(events: readonly StoredEvent[], files: RunFilesRead): Reconciliation {
  const records = llmCallRecords(events);
  const rows = expectedRows(events, records);
  const mismatches: Mismatch[] = [];
  const unreadable = (file: Mismatch["file"], read: FileRead<unknown>) => {
    if (read.state === "unreadable") mismatches.push({ file, job_id: null, column: "(file)", events: "readable", found: read.problem });
  };
  unreadable("results.csv", files.resultsCsv);
  unreadable("summary.json", files.summaryJson);
  if (files.resultsCsv.state === "read") {
    const seen = new Set<string>();
    const { order } = matrixJobs(events);
    const inOrder = (ids: Iterable<string>) => [...ids].sort((a, b) => (order.indexOf(a) >>> 0) - (order.indexOf(b) >>> 0));
    for (const fileRow of files.resultsCsv.value) {
      const jobId = fileRow.job_id ?? "";
      const expected = rows.get(jobId);
      if (seen.has(jobId)) {
        mismatches.push({ file: "results.csv", job_id: jobId, column: "job_id", events: "one row", found: "a second row" });
        continue;
      }
      seen.add(jobId);
      if (expected === undefined) {
        mismatches.push({ file: "results.csv", job_id: jobId, column: "job_id", events: "no finished attempt", found: "a row" });
        continue;
      }
      for (const column of RECONCILED_COLUMNS) {
        const found = cellValue(fileRow[column]);
        if (!same(expected[column], found)) mismatches.push({ file: "results.csv", job_id: jobId, column, events: expected[column], found });
      }
    }
    for (const jobId of inOrder(rows.keys())) {
      if (!seen.has(jobId)) mismatches.push({ file: "results.csv", job_id: jobId, column: "job_id", events: "a finished attempt", found: "no row" });
    }
  }
  if (files.summaryJson.state === "read") {
    const summary = files.summaryJson.value;
    const expected = expectedSummary(records, rows);
    const check = (path: string, want: CheckedValue, got: unknown) => {
      const found = jsonValue(got);
      if (!same(want, found)) mismatches.push({ file: "summary.json", job_id: null, column: path, events: want, found });
    };
    const field = (object: unknown, key: string): unknown => (object !== null && typeof object === "object" ? (object as Record<string, unknown>)[key] : undefined);
    for (const total of ["token_totals", "token_totals_all_attempts"] as const) {
      for (const [key, want] of Object.entries(expected[total])) check(`${total}.${key}`, want, field(summary[total], key));
    }
    check("cost_usd", expected.cost_usd, summary.cost_usd);
    check("cost_usd_all_attempts", expected.cost_usd_all_attempts, summary.cost_usd_all_attempts);
    for (const by of ["llm_by_model", "llm_by_role"] as const) {
      const inFile = summary[by];
      const keys = new Set([...expected[by].keys(), ...(inFile !== null && typeof inFile === "object" ? Object.keys(inFile) : [])]);
      for (const key of [...keys].sort()) {
        const use = expected[by].get(key);
        const got = field(inFile, key);
        if (use === undefined || got === undefined) {
          check(`${by}.${key}`, use === undefined ? "(absent)" : "present", got === undefined ? undefined : "present");
          continue;
        }
        for (const f of USE_FIELDS) check(`${by}.${key}.${f}`, use[f], field(got, f));
      }
    }
  }
  const stateOf = (read: FileRead<unknown>): FileState => (read.state === "read" ? "checked" : read.state);
  return { results_csv: stateOf(files.resultsCsv), summary_json: stateOf(files.summaryJson), mismatches };
}
