/**
 * `trace-bench tokens`: every LLM call of a run, counted by outcome and grouped by job, task,
 * trainer, model or role. A pure function of the events: the log is the source of truth, the
 * files are checked against it (token-reconciliation.ts).
 *
 * Outcomes are disjoint: `completed` calls were sent and billed, `replayed` calls were answered
 * from the journal of an interrupted attempt (nothing sent, nothing billed), `failed` and
 * `aborted` calls have no tokens (aborted: the provider may have billed some nobody knows),
 * `lost` calls have a Started and no outcome (the process stopped mid-call). Aborted and lost
 * calls may have been billed: what the log can say of them is a bound (`lost_at_most`, see
 * cut-off-calls.ts), reported apart from the billed tokens it knows. The preflight request each
 * mode-real invocation sends before its jobs (recorded with RunStarted) is a completed call of
 * role `preflight`, grouped under `(preflight)` by job, task and trainer.
 */
import { variantLabel } from "../../config/variant-label.js";
import type { JobSpecRecord, StoredEvent } from "../event-schema.js";
import { reportedCost, zeroCost, type CostTotal } from "../run-state.js";
import { cutOffBound } from "./cut-off-calls.js";
import { llmCallRecords, type CallCompleted, type CallOutcome, type LlmCallRecord } from "./llm-call-records.js";

export const AUDIT_GROUPINGS = ["job", "task", "trainer", "model", "role"] as const;
export type AuditGrouping = (typeof AUDIT_GROUPINGS)[number];

export interface TokenCounts {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  total_tokens: number;
}

export interface UsageGroup {
  readonly key: string;
  /** For `--by job`: what the job runs (absent for a job no matrix lists). */
  readonly job?: { readonly task_id: string; readonly trainer_id: string; readonly variant: string; readonly seed: number };
  readonly calls: Readonly<Record<CallOutcome, number>>;
  /** Tokens of the completed (sent, billed) calls. */
  readonly billed: Readonly<TokenCounts>;
  /** Tokens of the replayed calls: used by a result, not billed again. */
  readonly replayed: Readonly<TokenCounts>;
  /**
   * What the aborted and lost calls may have been billed, at most: prompt tokens (exact when the
   * same request was answered, else bounded) plus max_tokens; `unbounded` counts calls logged
   * without a bound (before requests recorded their max_tokens).
   */
  readonly lost_at_most: Readonly<LostAtMost>;
  /** USD of the billed calls; null when some billed call has no price (never a partial sum). */
  readonly cost_usd: number | null;
  /** Whether some counted tokens are estimates (stub LLM), not a provider's counts. */
  readonly estimated: boolean;
}

export interface TokenAudit {
  readonly by: AuditGrouping;
  readonly groups: readonly UsageGroup[];
  readonly totals: UsageGroup;
}

export interface LostAtMost {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  unbounded: number;
}

export const zeroTokenCounts = (): TokenCounts => ({ prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, total_tokens: 0 });

export function addTokenCounts(into: TokenCounts, call: CallCompleted): void {
  into.prompt_tokens += call.prompt_tokens;
  into.completion_tokens += call.completion_tokens;
  into.cached_tokens += call.cached_tokens ?? 0;
  into.total_tokens += call.total_tokens;
}

/** A call's cost into a total: absent (legacy) or null (no price) makes the total unknown. */
export function addCallCost(into: CostTotal, call: CallCompleted): void {
  if (typeof call.cost_usd === "number") into.usd += call.cost_usd;
  else into.unknown = true;
}

class Accumulator {
  readonly calls: Record<CallOutcome, number> = { completed: 0, replayed: 0, failed: 0, aborted: 0, lost: 0 };
  readonly billed = zeroTokenCounts();
  readonly replayed = zeroTokenCounts();
  readonly lost: LostAtMost = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, unbounded: 0 };
  readonly cost = zeroCost();
  estimated = false;

  constructor(private readonly promptByHash: ReadonlyMap<string, number>) {}

  add(record: LlmCallRecord): void {
    this.calls[record.outcome] += 1;
    if ((record.outcome === "aborted" || record.outcome === "lost") && record.started !== null) {
      const bound = cutOffBound(record.started, this.promptByHash);
      if (bound.tokens === null) this.lost.unbounded += 1;
      else {
        this.lost.prompt_tokens += bound.prompt_tokens!;
        this.lost.completion_tokens += bound.completion_tokens!;
        this.lost.total_tokens += bound.tokens;
      }
    }
    const done = record.completed;
    if (done === null) return;
    this.estimated ||= done.estimated;
    if (record.outcome === "replayed") return addTokenCounts(this.replayed, done);
    addTokenCounts(this.billed, done);
    addCallCost(this.cost, done);
  }

  group(key: string): UsageGroup {
    return {
      key,
      calls: { ...this.calls },
      billed: { ...this.billed },
      replayed: { ...this.replayed },
      lost_at_most: { ...this.lost },
      cost_usd: reportedCost(this.cost),
      estimated: this.estimated,
    };
  }
}

/** Job id → its spec in the latest matrix that lists it; ids in report order (latest matrix first). */
export function matrixJobs(events: Iterable<StoredEvent>): { specs: Map<string, JobSpecRecord>; order: string[] } {
  const specs = new Map<string, JobSpecRecord>();
  let order: string[] = [];
  for (const event of events) {
    if (event.type !== "RunStarted") continue;
    const ids = event.data.matrix.map((s) => s.job_id);
    const known = new Set(ids);
    order = [...ids, ...order.filter((id) => !known.has(id))];
    for (const spec of event.data.matrix) specs.set(spec.job_id, spec);
  }
  return { specs, order };
}

/** A job the matrix does not list (a doctored log) is grouped under this key. */
export const UNKNOWN_KEY = "(not in the matrix)";

/** The preflight requests' key when grouped by job, task or trainer (they belong to no job). */
export const PREFLIGHT_KEY = "(preflight)";

/**
 * The preflight requests of the run's invocations as completed call records of role `preflight`
 * (attempt: the invocation; call: the model's place in its list).
 */
export function preflightCallRecords(events: Iterable<StoredEvent>): LlmCallRecord[] {
  const records: LlmCallRecord[] = [];
  for (const event of events) {
    if (event.type !== "RunStarted" || event.data.llm_preflight === undefined) continue;
    const preflights = Array.isArray(event.data.llm_preflight) ? event.data.llm_preflight : [event.data.llm_preflight];
    preflights.forEach((p, i) => {
      const completed: CallCompleted = {
        attempt: event.data.invocation,
        call: i + 1,
        role: "preflight",
        model: p.model,
        prompt_tokens: p.prompt_tokens,
        completion_tokens: p.completion_tokens,
        total_tokens: p.total_tokens,
        latency_ms: p.latency_ms,
        estimated: false,
        cost_usd: p.cost_usd,
      };
      records.push({ seq: event.seq, job_id: PREFLIGHT_KEY, attempt: event.data.invocation, call: i + 1, role: "preflight", model: p.model, outcome: "completed", started: null, completed, failed: null, aborted: null });
    });
  }
  return records;
}

/** Prompt tokens the provider reported, by request hash (answered calls, replayed ones included). */
export function promptTokensByHash(records: readonly LlmCallRecord[]): Map<string, number> {
  const byHash = new Map<string, number>();
  for (const r of records) if (r.started !== null && r.completed !== null && !byHash.has(r.started.request_hash)) byHash.set(r.started.request_hash, r.completed.prompt_tokens);
  return byHash;
}

export function tokenAudit(events: readonly StoredEvent[], by: AuditGrouping = "job"): TokenAudit {
  const { specs, order } = matrixJobs(events);
  const keyOf = (record: LlmCallRecord): string => {
    if (by === "model") return record.model;
    if (by === "role") return record.role;
    if (record.job_id === PREFLIGHT_KEY) return PREFLIGHT_KEY;
    const spec = specs.get(record.job_id);
    if (by === "job") return record.job_id;
    if (spec === undefined) return UNKNOWN_KEY;
    return by === "task" ? spec.task_id : spec.trainer_id;
  };
  const records = [...preflightCallRecords(events), ...llmCallRecords(events)];
  const promptByHash = promptTokensByHash(records);
  const groups = new Map<string, Accumulator>();
  const of = (key: string) => {
    let acc = groups.get(key);
    if (acc === undefined) groups.set(key, (acc = new Accumulator(promptByHash)));
    return acc;
  };
  // Every matrix job, task and trainer is listed, with or without calls (the job list doubles as the index `calls --job` takes).
  if (by === "job") for (const id of order) of(id);
  if (by === "task" || by === "trainer") for (const id of order) of(by === "task" ? specs.get(id)!.task_id : specs.get(id)!.trainer_id);
  const totals = new Accumulator(promptByHash);
  for (const record of records) {
    of(keyOf(record)).add(record);
    totals.add(record);
  }
  const keys = [...groups.keys()];
  // Jobs keep report order; other keys sort, so the output is stable.
  if (by !== "job") keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const withJob = (group: UsageGroup): UsageGroup => {
    const spec = by === "job" ? specs.get(group.key) : undefined;
    if (spec === undefined) return group;
    const { key, ...rest } = group;
    return { key, job: { task_id: spec.task_id, trainer_id: spec.trainer_id, variant: variantLabel(spec.raw_params), seed: spec.seed }, ...rest };
  };
  return { by, groups: keys.map((key) => withJob(groups.get(key)!.group(key))), totals: totals.group("total") };
}
