/**
 * The journal of an interrupted job: the replies its earlier attempts already received, so a
 * re-run is answered from the log instead of paying again. A request is answered while it matches
 * what was journaled (the same request hash at the same position, or, when concurrent requests
 * started in another order, an unused entry with the same hash). A request an earlier attempt sent
 * without getting a reply (failed, cut off) goes live and the replay goes on; the first request the
 * journal does not know ends the replay for the rest of the attempt, and calls go live.
 */
import type { EventBody, FinishedStatus } from "../events/event-schema.js";

export interface JournalEntry {
  readonly call: number;
  readonly requestHash: string;
  readonly replyRef: string;
  readonly model: string;
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  readonly cached_tokens: number;
  readonly estimated: boolean;
  readonly cost_usd: number | null;
}

/** Attempts whose replies a re-run may reuse: ones that did not end with a result the user keeps. */
const REUSABLE_ENDINGS: ReadonlySet<FinishedStatus | null> = new Set([null, "cancelled", "timeout", "failed"]);

/**
 * The journal for the next attempt of a job with this history: the completed calls of the earlier
 * attempts since the job last ended with a kept result (ok, skipped, budget_exhausted), the latest
 * attempt's entry winning at each position. Empty when the latest attempt ended with a kept result.
 */
export interface JournalContents {
  readonly entries: readonly JournalEntry[];
  /** Request hashes earlier attempts sent without a reply (failed, aborted, lost). */
  readonly unanswered: readonly string[];
}

export function journalFromHistory(history: readonly EventBody[]): JournalContents {
  const attempts: { ending: FinishedStatus | null; started: Map<number, string>; completed: Map<number, JournalEntry> }[] = [];
  for (const event of history) {
    if (event.type === "JobQueued") attempts.push({ ending: null, started: new Map(), completed: new Map() });
    const current = attempts.at(-1);
    if (current === undefined) continue;
    if (event.type === "JobFinished") current.ending = event.data.status;
    else if (event.type === "LlmCallStarted") current.started.set(event.data.call, event.data.request_hash);
    else if (event.type === "LlmCallCompleted") {
      const d = event.data;
      const hash = d.call === undefined ? undefined : current.started.get(d.call);
      if (d.call === undefined || hash === undefined || d.reply_ref === undefined) continue;
      current.completed.set(d.call, {
        call: d.call,
        requestHash: hash,
        replyRef: d.reply_ref,
        model: d.model,
        prompt_tokens: d.prompt_tokens,
        completion_tokens: d.completion_tokens,
        total_tokens: d.total_tokens,
        cached_tokens: d.cached_tokens ?? 0,
        estimated: d.estimated,
        cost_usd: d.cost_usd ?? null,
      });
    }
  }
  const byPosition = new Map<number, JournalEntry>();
  const unanswered: string[] = [];
  for (let i = attempts.length - 1; i >= 0; i--) {
    const attempt = attempts[i]!;
    if (!REUSABLE_ENDINGS.has(attempt.ending)) break;
    for (const [call, entry] of attempt.completed) if (!byPosition.has(call)) byPosition.set(call, entry);
    for (const [call, hash] of attempt.started) if (!attempt.completed.has(call)) unanswered.push(hash);
  }
  return { entries: [...byPosition.values()].sort((a, b) => a.call - b.call), unanswered };
}

export type JournalAnswer = { readonly kind: "replay"; readonly entry: JournalEntry } | { readonly kind: "diverged"; readonly journaledHash: string | null } | { readonly kind: "live" };

export class CallJournal {
  private readonly unused: Map<number, JournalEntry>;
  private readonly unanswered: Set<string>;
  private open: boolean;
  private replayedCount = 0;

  constructor({ entries, unanswered }: JournalContents) {
    this.unused = new Map(entries.map((e) => [e.call, e]));
    this.unanswered = new Set(unanswered);
    this.open = entries.length > 0;
  }

  /** Calls answered from the journal so far. */
  get replayed(): number {
    return this.replayedCount;
  }

  /** What to do with the request at `call` whose hash is `requestHash`. */
  answer(call: number, requestHash: string): JournalAnswer {
    if (!this.open) return { kind: "live" };
    const atPosition = this.unused.get(call);
    const entry = atPosition?.requestHash === requestHash ? atPosition : [...this.unused.values()].find((e) => e.requestHash === requestHash);
    if (entry !== undefined) {
      this.unused.delete(entry.call);
      this.replayedCount += 1;
      if (this.unused.size === 0) this.open = false;
      return { kind: "replay", entry };
    }
    // Sent before but never answered: ask again, and keep replaying what follows.
    if (this.unanswered.has(requestHash)) return { kind: "live" };
    this.open = false;
    this.unused.clear();
    return { kind: "diverged", journaledHash: atPosition?.requestHash ?? null };
  }
}
