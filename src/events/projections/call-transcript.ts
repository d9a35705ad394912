/**
 * `trace-bench calls`: the LLM calls of a run as a transcript (who asked what, what came back),
 * with the prompt messages and replies read from the content table. Pure: events, and the texts
 * the caller looked up by ref, in; entries out.
 */
import type { StoredEvent } from "../event-schema.js";
import type { CallOutcome, LlmCallRecord } from "./llm-call-records.js";

export interface TranscriptEntry {
  readonly seq: number;
  readonly job_id: string;
  readonly attempt: number;
  readonly call: number | null;
  readonly role: string;
  readonly model: string;
  readonly outcome: CallOutcome;
  /** What went wrong: the error of a failed call, the reason of an aborted one. */
  readonly error: string | null;
  readonly prompt_tokens: number | null;
  readonly completion_tokens: number | null;
  readonly cached_tokens: number | null;
  readonly total_tokens: number | null;
  readonly estimated: boolean | null;
  readonly latency_ms: number | null;
  readonly cost_usd: number | null;
  /** The prompt messages; text null when not in the content table. Null when the log has no Started (legacy). */
  readonly messages: readonly { readonly role: string; readonly text: string | null }[] | null;
  /** The reply; null when the call has none or it was not stored. */
  readonly reply: string | null;
}

/** Every content ref the records point at (prompt messages, replies). */
export function contentRefsOf(records: readonly LlmCallRecord[]): Set<string> {
  const refs = new Set<string>();
  for (const r of records) {
    for (const m of r.started?.messages ?? []) refs.add(m.ref);
    if (r.completed?.reply_ref !== undefined) refs.add(r.completed.reply_ref);
  }
  return refs;
}

/**
 * The calls of step `step` of each job: per attempt, those that started after the attempt's
 * previous IterationCompleted (or at the attempt's start) and up to its IterationCompleted with
 * `step === step`. Calls of the evaluations before the first step fall into the first step's
 * window; calls after the last step are in no step. Null when no job has that step.
 */
export function callsOfStep(events: readonly StoredEvent[], records: readonly LlmCallRecord[], step: number): LlmCallRecord[] | null {
  // [job, attempt, after seq, up to seq] of each matching step.
  const windows: { job: string; attempt: number; after: number; upTo: number }[] = [];
  const lastIteration = new Map<string, number>();
  for (const e of events) {
    if (e.type !== "IterationCompleted" || e.job_id === null) continue;
    const key = JSON.stringify([e.job_id, e.data.attempt]);
    if (e.data.step === step) windows.push({ job: e.job_id, attempt: e.data.attempt, after: lastIteration.get(key) ?? 0, upTo: e.seq });
    lastIteration.set(key, e.seq);
  }
  if (windows.length === 0) return null;
  return records.filter((r) => windows.some((w) => w.job === r.job_id && w.attempt === r.attempt && r.seq > w.after && r.seq <= w.upTo));
}

/** The steps a job's IterationCompleted events name, in order, for messages. */
export function stepsOf(events: readonly StoredEvent[], jobId: string | null): number[] {
  const steps = new Set<number>();
  for (const e of events) if (e.type === "IterationCompleted" && (jobId === null || e.job_id === jobId)) steps.add(e.data.step);
  return [...steps].sort((a, b) => a - b);
}

function errorOf(r: LlmCallRecord): string | null {
  if (r.failed !== null) {
    const f = r.failed;
    return `${f.error_class}${f.http_status === null ? "" : ` ${f.http_status}`}, ${f.retries} retries: ${f.message}`;
  }
  return r.aborted?.reason ?? null;
}

export function transcriptEntries(records: readonly LlmCallRecord[], contents: ReadonlyMap<string, string>): TranscriptEntry[] {
  return records.map((r) => {
    const done = r.completed;
    const replyRef = done?.reply_ref;
    return {
      seq: r.seq,
      job_id: r.job_id,
      attempt: r.attempt,
      call: r.call,
      role: r.role,
      model: r.model,
      outcome: r.outcome,
      error: errorOf(r),
      prompt_tokens: done?.prompt_tokens ?? null,
      completion_tokens: done?.completion_tokens ?? null,
      cached_tokens: done === null ? null : (done.cached_tokens ?? 0),
      total_tokens: done?.total_tokens ?? null,
      estimated: done?.estimated ?? null,
      latency_ms: done?.latency_ms ?? r.failed?.latency_ms ?? r.aborted?.latency_ms ?? null,
      cost_usd: done?.cost_usd ?? null,
      messages: r.started === null ? null : r.started.messages.map((m) => ({ role: m.role, text: contents.get(m.ref) ?? null })),
      // Legacy logs kept the reply inline.
      reply: (replyRef === undefined ? undefined : contents.get(replyRef)) ?? done?.response ?? null,
    };
  });
}
