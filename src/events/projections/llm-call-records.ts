/**
 * The LLM calls of a run, one record per call: its `LlmCallStarted` paired with its outcome by
 * (job, attempt, call). A Started with no outcome is `lost` (the process stopped mid-call);
 * a legacy `LlmCallCompleted` (no `call`, no Started) is a call of its own. Pure: events in,
 * records out, in the order the calls started (seq of the Started, or of the outcome when none).
 */
import type { EventData, StoredEvent } from "../event-schema.js";

export type CallOutcome = "completed" | "replayed" | "failed" | "aborted" | "lost";

export type CallStarted = EventData<"LlmCallStarted">;
export type CallCompleted = EventData<"LlmCallCompleted">;
export type CallFailed = EventData<"LlmCallFailed">;
export type CallAborted = EventData<"LlmCallAborted">;

export interface LlmCallRecord {
  /** Seq of the Started event (of the outcome when there is no Started). */
  readonly seq: number;
  readonly job_id: string;
  readonly attempt: number;
  /** 1-based position in the attempt; null for legacy calls. */
  readonly call: number | null;
  readonly role: string;
  readonly model: string;
  readonly outcome: CallOutcome;
  readonly started: CallStarted | null;
  readonly completed: CallCompleted | null;
  readonly failed: CallFailed | null;
  readonly aborted: CallAborted | null;
}

type Mutable = { -readonly [K in keyof LlmCallRecord]: LlmCallRecord[K] };

function blank(seq: number, jobId: string, d: { attempt: number; role: string; model: string; call?: number | undefined }): Mutable {
  return { seq, job_id: jobId, attempt: d.attempt, call: d.call ?? null, role: d.role, model: d.model, outcome: "lost", started: null, completed: null, failed: null, aborted: null };
}

export function llmCallRecords(events: Iterable<StoredEvent>): LlmCallRecord[] {
  const records: Mutable[] = [];
  // Calls waiting for their outcome, by job/attempt/call.
  const open = new Map<string, Mutable>();
  const keyOf = (jobId: string, attempt: number, call: number) => JSON.stringify([jobId, attempt, call]);
  // The open call an outcome settles, or a new record when its Started is not in the log.
  const settle = (event: StoredEvent & { job_id: string }, d: { attempt: number; role: string; model: string; call?: number | undefined }) => {
    if (d.call !== undefined) {
      const key = keyOf(event.job_id, d.attempt, d.call);
      const pending = open.get(key);
      if (pending !== undefined) {
        open.delete(key);
        return pending;
      }
    }
    const record = blank(event.seq, event.job_id, d);
    records.push(record);
    return record;
  };
  for (const event of events) {
    if (event.job_id === null) continue;
    const e = event as StoredEvent & { job_id: string };
    switch (e.type) {
      case "LlmCallStarted": {
        const record = blank(e.seq, e.job_id, e.data);
        record.started = e.data;
        records.push(record);
        open.set(keyOf(e.job_id, e.data.attempt, e.data.call), record);
        break;
      }
      case "LlmCallCompleted": {
        const record = settle(e, e.data);
        record.completed = e.data;
        record.outcome = e.data.replayed === true ? "replayed" : "completed";
        break;
      }
      case "LlmCallFailed": {
        const record = settle(e, e.data);
        record.failed = e.data;
        record.outcome = "failed";
        break;
      }
      case "LlmCallAborted": {
        const record = settle(e, e.data);
        record.aborted = e.data;
        record.outcome = "aborted";
        break;
      }
      default:
        break;
    }
  }
  return records;
}
