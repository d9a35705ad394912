/**
 * The journal of an interrupted job: which earlier replies a re-run may reuse (journalFromHistory)
 * and how requests are answered from it (CallJournal.answer).
 */
import { describe, expect, it } from "vitest";
import type { EventBody } from "../../../src/events/event-schema.js";
import { CallJournal, journalFromHistory, type JournalEntry } from "../../../src/llm/call-journal.js";
import { completed, failed, finished, MODEL, queued, started } from "./call-fakes.js";

const entry = (call: number, requestHash: string, replyRef = `reply-${requestHash}`): JournalEntry => ({
  call,
  requestHash,
  replyRef,
  model: MODEL,
  prompt_tokens: 1,
  completion_tokens: 1,
  total_tokens: 2,
  cached_tokens: 0,
  estimated: false,
  cost_usd: null,
});

describe("journalFromHistory", () => {
  it("journals the completed calls of a crashed attempt, with the Started fact's request hash", () => {
    const journal = journalFromHistory([queued(1), started(1, 1, "h1"), completed(1, 1, "r1"), started(1, 2, "h2"), failed(1, 2), started(1, 3, "h3")]);
    expect(journal.entries).toEqual([
      { call: 1, requestHash: "h1", replyRef: "r1", model: MODEL, prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, cached_tokens: 40, estimated: false, cost_usd: 0.25 },
    ]);
    // The failed call and the one lost in the crash were sent without a reply.
    expect([...journal.unanswered].sort()).toEqual(["h2", "h3"]);
  });

  it("gives nothing when the latest attempt ended with a kept result", () => {
    for (const status of ["ok", "skipped", "budget_exhausted"] as const) {
      expect(journalFromHistory([queued(1), started(1, 1, "h1"), completed(1, 1, "r1"), finished(1, status)]), status).toEqual({ entries: [], unanswered: [] });
    }
  });

  it("reuses attempts that ended cancelled, timed out or failed", () => {
    for (const status of ["cancelled", "timeout", "failed"] as const) {
      expect(journalFromHistory([queued(1), started(1, 1, "h1"), completed(1, 1, "r1"), finished(1, status)]).entries.map((e) => e.requestHash), status).toEqual(["h1"]);
    }
  });

  it("takes the latest attempt's entry at each position, earlier interrupted attempts filling the gaps", () => {
    const history: EventBody[] = [
      queued(1),
      started(1, 1, "a"),
      completed(1, 1, "ra"),
      started(1, 2, "b"),
      completed(1, 2, "rb"),
      started(1, 3, "c"),
      completed(1, 3, "rc"),
      finished(1, "timeout"),
      queued(2),
      started(2, 1, "a"),
      completed(2, 1, "ra", { replayed: true }),
      started(2, 2, "x"),
      completed(2, 2, "rx"),
      // crashed
    ];
    const journal = journalFromHistory(history);
    expect(journal.entries.map((e) => [e.call, e.requestHash, e.replyRef])).toEqual([
      [1, "a", "ra"],
      [2, "x", "rx"],
      [3, "c", "rc"],
    ]);
    expect(journal.unanswered).toEqual([]);
  });

  it("stops at the latest attempt that ended with a kept result", () => {
    const history = [queued(1), started(1, 1, "old"), completed(1, 1, "r-old"), finished(1, "ok"), queued(2), started(2, 2, "new"), completed(2, 2, "r-new")];
    expect(journalFromHistory(history).entries.map((e) => e.requestHash)).toEqual(["new"]);
  });

  it("ignores legacy completions (no call or no reply_ref), completions without a Started fact, and events before any JobQueued", () => {
    const legacy: EventBody = {
      type: "LlmCallCompleted",
      data: { attempt: 1, role: "optimizer", model: MODEL, prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, latency_ms: 1, estimated: true, response: "text" },
    };
    const history = [started(0, 1, "before"), completed(0, 1, "r-before"), queued(1), legacy, completed(1, 2, "r-orphan"), started(1, 3, "h3"), completed(1, 3, "r3", { reply_ref: undefined })];
    const journal = journalFromHistory(history);
    expect(journal.entries).toEqual([]);
    expect(journal.unanswered).toEqual(["h3"]);
  });

  it("reads a missing cost as unknown (null) and missing cached tokens as 0", () => {
    const [e] = journalFromHistory([queued(1), started(1, 1, "h"), completed(1, 1, "r", { cost_usd: undefined, cached_tokens: undefined })]).entries;
    expect(e).toMatchObject({ cost_usd: null, cached_tokens: 0 });
  });
});

describe("CallJournal.answer", () => {
  it("answers live when the journal is empty", () => {
    const journal = new CallJournal({ entries: [], unanswered: ["h"] });
    expect(journal.answer(1, "h")).toEqual({ kind: "live" });
    expect(journal.answer(2, "other")).toEqual({ kind: "live" });
  });

  it("replays the entry at the same position and hash, and counts it", () => {
    const e1 = entry(1, "a");
    const e2 = entry(2, "b");
    const journal = new CallJournal({ entries: [e1, e2], unanswered: [] });
    expect(journal.answer(1, "a")).toEqual({ kind: "replay", entry: e1 });
    expect(journal.replayed).toBe(1);
    expect(journal.answer(2, "b")).toEqual({ kind: "replay", entry: e2 });
    expect(journal.replayed).toBe(2);
    // The journal is used up: what follows is live, not a divergence.
    expect(journal.answer(3, "c")).toEqual({ kind: "live" });
  });

  it("replays requests that started in another order (same hashes, swapped positions)", () => {
    const journal = new CallJournal({ entries: [entry(1, "a"), entry(2, "b")], unanswered: [] });
    expect(journal.answer(1, "b")).toMatchObject({ kind: "replay", entry: { call: 2 } });
    expect(journal.answer(2, "a")).toMatchObject({ kind: "replay", entry: { call: 1 } });
  });

  it("prefers the entry at the request's own position when a hash repeats", () => {
    const journal = new CallJournal({ entries: [entry(1, "same", "r1"), entry(2, "same", "r2")], unanswered: [] });
    expect(journal.answer(2, "same")).toMatchObject({ kind: "replay", entry: { replyRef: "r2" } });
    expect(journal.answer(1, "same")).toMatchObject({ kind: "replay", entry: { replyRef: "r1" } });
  });

  it("diverges once at an unknown request, naming what it held there; then answers live", () => {
    const journal = new CallJournal({ entries: [entry(1, "a"), entry(2, "b"), entry(3, "c")], unanswered: [] });
    expect(journal.answer(1, "a").kind).toBe("replay");
    expect(journal.answer(2, "x")).toEqual({ kind: "diverged", journaledHash: "b" });
    expect(journal.answer(3, "c")).toEqual({ kind: "live" });
    expect(journal.answer(4, "y")).toEqual({ kind: "live" });
    expect(journal.replayed).toBe(1);
  });

  it("diverges with a null journaled hash at a position the journal holds nothing for", () => {
    const journal = new CallJournal({ entries: [entry(1, "a"), entry(3, "c")], unanswered: [] });
    expect(journal.answer(1, "a").kind).toBe("replay");
    expect(journal.answer(2, "x")).toEqual({ kind: "diverged", journaledHash: null });
  });

  it("sends an unanswered request live and keeps replaying", () => {
    const journal = new CallJournal({ entries: [entry(1, "a"), entry(3, "c")], unanswered: ["b"] });
    expect(journal.answer(1, "a").kind).toBe("replay");
    expect(journal.answer(2, "b")).toEqual({ kind: "live" });
    expect(journal.answer(3, "c").kind).toBe("replay");
    expect(journal.replayed).toBe(2);
  });
});
