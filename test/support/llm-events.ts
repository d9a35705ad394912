/** Builders for LLM call events, for the audit and transcript tests. */
import type { NewEvent, StoredEvent } from "../../src/events/event-schema.js";
import { finishedJob, RUN_ID } from "./events.js";

interface CallOptions {
  readonly role?: string;
  readonly model?: string;
  /** What the Started records of the request's size: its max_tokens and its prompt's bound. */
  readonly bound?: { readonly max_tokens: number | null; readonly prompt_tokens_at_most: number };
}

export const promptRef = (job: string, attempt: number, call: number) => `prompt-${job}-${attempt}-${call}`;
export const replyRef = (job: string, attempt: number, call: number) => `reply-${job}-${attempt}-${call}`;

export function callStarted(job: string, attempt: number, call: number, o: CallOptions = {}): NewEvent {
  return {
    type: "LlmCallStarted",
    job_id: job,
    data: {
      attempt,
      call,
      role: o.role ?? "optimizer",
      model: o.model ?? "gpt-x",
      request_hash: `hash-${call}`,
      messages: [{ role: "user", ref: promptRef(job, attempt, call) }],
      ...(o.bound ?? {}),
    },
  };
}

export function callCompleted(
  job: string,
  attempt: number,
  call: number,
  tokens: readonly [prompt: number, completion: number],
  o: CallOptions & { readonly cost?: number | null; readonly replayed?: boolean; readonly cached?: number } = {},
): NewEvent {
  const [prompt, completion] = tokens;
  return {
    type: "LlmCallCompleted",
    job_id: job,
    data: {
      attempt,
      call,
      role: o.role ?? "optimizer",
      model: o.model ?? "gpt-x",
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      cached_tokens: o.cached ?? 0,
      latency_ms: 5,
      estimated: false,
      retries: 0,
      cost_usd: o.cost === undefined ? 0.001 : o.cost,
      reply_ref: replyRef(job, attempt, call),
      replayed: o.replayed ?? false,
    },
  };
}

/** A call as logs before the journal wrote it: no `call`, no Started, no cost, reply inline. */
export function legacyCompleted(job: string, attempt: number, tokens: readonly [number, number], response = "legacy reply"): NewEvent {
  return {
    type: "LlmCallCompleted",
    job_id: job,
    data: { attempt, role: "optimizer", model: "gpt-x", prompt_tokens: tokens[0], completion_tokens: tokens[1], total_tokens: tokens[0] + tokens[1], latency_ms: 1, estimated: true, response },
  };
}

export function callFailed(job: string, attempt: number, call: number, o: CallOptions = {}): NewEvent {
  return {
    type: "LlmCallFailed",
    job_id: job,
    data: { attempt, call, role: o.role ?? "optimizer", model: o.model ?? "gpt-x", error_class: "rate_limited", http_status: 429, retries: 2, message: "slow down", latency_ms: 30 },
  };
}

export function callAborted(job: string, attempt: number, call: number, o: CallOptions = {}): NewEvent {
  return { type: "LlmCallAborted", job_id: job, data: { attempt, call, role: o.role ?? "optimizer", model: o.model ?? "gpt-x", reason: "job timeout", latency_ms: 40 } };
}

export const jobQueued = (job: string, attempt: number): NewEvent => ({ type: "JobQueued", job_id: job, data: { attempt, invocation: attempt } });

/** The JobFinished of `finishedJob`, for another attempt. */
export const jobFinished = (job: string, attempt: number): NewEvent => finishedJob(job, attempt).at(-1)!;

export function iteration(job: string, attempt: number, step: number): NewEvent {
  return { type: "IterationCompleted", job_id: job, data: { attempt, step, score: 0, best_score: 0, values: {}, llm_calls: 0, evaluations: 0 } };
}

/** Stores events the way the real store does: seq and ts assigned in order. */
export function storedEvents(events: readonly NewEvent[]): StoredEvent[] {
  return events.map(
    (e, i) => ({ seq: i + 1, v: 2, stream: e.job_id ? `job-${e.job_id}` : "run", position: 0, type: e.type, run_id: RUN_ID, job_id: e.job_id ?? null, ts: "2026-01-01T00:00:00.000Z", data: e.data }) as StoredEvent,
  );
}
