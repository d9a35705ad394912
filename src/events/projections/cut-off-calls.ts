/**
 * Calls sent without a bill in the log: `aborted` (cut off by a timeout, Ctrl-C or a budget) and
 * `lost` (started, then the process died). The provider may have billed them; the log can only
 * bound it: the prompt's tokens (known when the same request was answered elsewhere in the log,
 * else the bound recorded when it was sent) plus the request's max_tokens. Calls logged before
 * requests recorded their max_tokens have no bound (null).
 */
import type { EventBody, EventData, FinishedStatus } from "../event-schema.js";

export interface CutOffBound {
  /** The prompt's tokens: exact when `prompt_known`, else at most. */
  readonly prompt_tokens: number | null;
  readonly prompt_known: boolean;
  /** The completion's tokens at most (the request's max_tokens). */
  readonly completion_tokens: number | null;
  /** Prompt + completion at most; null when either is unknown. */
  readonly tokens: number | null;
}

/** What a cut-off call may have been billed, given the prompt tokens answered requests reported by hash. */
export function cutOffBound(started: EventData<"LlmCallStarted">, promptByHash: ReadonlyMap<string, number>): CutOffBound {
  const known = promptByHash.get(started.request_hash);
  const prompt = known ?? started.prompt_tokens_at_most ?? null;
  const completion = started.max_tokens ?? null;
  return { prompt_tokens: prompt, prompt_known: known !== undefined, completion_tokens: completion, tokens: prompt !== null && completion !== null ? prompt + completion : null };
}

export interface CutOffCall extends CutOffBound {
  readonly attempt: number;
  readonly model: string;
}

/** Results a job keeps (its attempts before them are done with, as the journal has it). */
const KEPT: ReadonlySet<FinishedStatus> = new Set(["ok", "skipped", "budget_exhausted"]);

/**
 * The cut-off calls of one job's history (its stream, every attempt), each with its bound;
 * `sinceKept`: only the attempts after its latest kept result (those a re-run continues).
 */
export function cutOffCalls(history: Iterable<EventBody>, sinceKept: boolean): CutOffCall[] {
  const promptByHash = new Map<string, number>();
  const started = new Map<string, EventData<"LlmCallStarted">>();
  const settled = new Set<string>();
  const aborted = new Set<string>();
  let keptAttempt = 0;
  const key = (attempt: number, call: number) => `${attempt}:${call}`;
  for (const event of history) {
    switch (event.type) {
      case "LlmCallStarted":
        started.set(key(event.data.attempt, event.data.call), event.data);
        break;
      case "LlmCallCompleted": {
        const d = event.data;
        if (d.call === undefined) break;
        settled.add(key(d.attempt, d.call));
        const hash = started.get(key(d.attempt, d.call))?.request_hash;
        if (hash !== undefined && !promptByHash.has(hash)) promptByHash.set(hash, d.prompt_tokens);
        break;
      }
      case "LlmCallFailed":
        settled.add(key(event.data.attempt, event.data.call));
        break;
      case "LlmCallAborted":
        aborted.add(key(event.data.attempt, event.data.call));
        break;
      case "JobFinished":
        if (KEPT.has(event.data.status)) keptAttempt = Math.max(keptAttempt, event.data.attempt);
        break;
      default:
        break;
    }
  }
  const calls: CutOffCall[] = [];
  for (const [k, s] of started) {
    if (settled.has(k) && !aborted.has(k)) continue;
    if (sinceKept && s.attempt <= keptAttempt) continue;
    calls.push({ attempt: s.attempt, model: s.model, ...cutOffBound(s, promptByHash) });
  }
  return calls;
}
