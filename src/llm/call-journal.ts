/**
 * The journal of an interrupted job: the replies its earlier attempts already received, so a
 * re-run is answered from the log instead of paying again. A request is answered while it matches
 * what was journaled (the same request hash at the same position, or, when concurrent requests
 * started in another order, an unused entry with the same hash). A request an earlier attempt sent
 * without getting a reply (failed, cut off) goes live and the replay goes on; the first request the
 * journal does not know ends the replay for the rest of the attempt, and calls go live.
 *
 * A task's calls (agents, guides) carry a slot, their place in the job whatever order concurrent
 * examples send them in: one is answered by the entry of its slot when the request is the same,
 * else it goes live; it never ends the replay of the others (a slot not journaled is one the
 * interrupted attempt did not get to).
 */
import type { EventBody, FinishedStatus } from "../events/event-schema.js";

export interface JournalEntry {
  readonly call: number;
  /** A task call's place in the job (absent for the optimizer's calls). */
  readonly slot?: string;
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
  const attempts: { ending: FinishedStatus | null; started: Map<number, { hash: string; slot: string | undefined }>; completed: Map<number, JournalEntry> }[] = [];
  for (const event of history) {
    if (event.type === "JobQueued") attempts.push({ ending: null, started: new Map(), completed: new Map() });
    const current = attempts.at(-1);
    if (current === undefined) continue;
    if (event.type === "JobFinished") current.ending = event.data.status;
    else if (event.type === "LlmCallStarted") current.started.set(event.data.call, { hash: event.data.request_hash, slot: event.data.slot });
    else if (event.type === "LlmCallCompleted") {
      const d = event.data;
      const started = d.call === undefined ? undefined : current.started.get(d.call);
      if (d.call === undefined || started === undefined || d.reply_ref === undefined) continue;
      current.completed.set(d.call, {
        call: d.call,
        ...(started.slot !== undefined ? { slot: started.slot } : {}),
        requestHash: started.hash,
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
  // Positions of optimizer calls and slots of task calls: attempts number their calls alike only for the former.
  const byPosition = new Map<number, JournalEntry>();
  const bySlot = new Map<string, JournalEntry>();
  const unanswered: string[] = [];
  for (let i = attempts.length - 1; i >= 0; i--) {
    const attempt = attempts[i]!;
    if (!REUSABLE_ENDINGS.has(attempt.ending)) break;
    for (const [call, entry] of attempt.completed) {
      if (entry.slot !== undefined) {
        if (!bySlot.has(entry.slot)) bySlot.set(entry.slot, entry);
      } else if (!byPosition.has(call)) byPosition.set(call, entry);
    }
    for (const [call, started] of attempt.started) if (!attempt.completed.has(call) && started.slot === undefined) unanswered.push(started.hash);
  }
  const entries = [...byPosition.values()].sort((a, b) => a.call - b.call);
  return { entries: bySlot.size === 0 ? entries : [...entries, ...bySlot.values()], unanswered };
}

export type JournalAnswer = { readonly kind: "replay"; readonly entry: JournalEntry } | { readonly kind: "diverged"; readonly journaledHash: string | null } | { readonly kind: "live" };

export class CallJournal {
  private readonly unused: Map<number, JournalEntry>;
  private readonly unanswered: Set<string>;
  private open: boolean;
  private replayedCount = 0;

  private readonly bySlot: Map<string, JournalEntry>;

  constructor({ entries, unanswered }: JournalContents) {
    const positioned = entries.filter((e) => e.slot === undefined);
    this.unused = new Map(positioned.map((e) => [e.call, e]));
    this.bySlot = new Map(entries.filter((e) => e.slot !== undefined).map((e) => [e.slot!, e]));
    this.unanswered = new Set(unanswered);
    this.open = positioned.length > 0;
  }

  /** Calls answered from the journal so far. */
  get replayed(): number {
    return this.replayedCount;
  }

  /** What to do with the request at `call` (a task's: at `slot`) whose hash is `requestHash`. */
  answer(call: number, requestHash: string, slot?: string): JournalAnswer {
    if (slot !== undefined) {
      const entry = this.bySlot.get(slot);
      if (entry === undefined || entry.requestHash !== requestHash) return { kind: "live" };
      this.bySlot.delete(slot);
      this.replayedCount += 1;
      return { kind: "replay", entry };
    }
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
