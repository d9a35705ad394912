/**
 * The coordinator's side of `--executor bullmq` over a real run session (SQLite in a temp dir):
 * what makes at-least-once delivery record nothing twice. A batch re-sent is committed once; a
 * ticket delivered again claims the next attempt and the earlier attempt's batches are refused;
 * batches of another invocation, or at a stale version, are refused without touching the log.
 * The run's budget is the coordinator's: admissions from every worker's batches share it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { decide, initialJobDecisionState, foldJobStream, type JobOutcome } from "../../../src/engine/job-decider.js";
import { RunInbox } from "../../../src/engine/executor/coordinator-inbox.js";
import { RunSession } from "../../../src/engine/run-session.js";
import type { EventBatch, JobTicket, RunRecipe } from "../../../src/executor/executor-protocol.js";
import { jobStream, type NewEvent } from "../../../src/events/event-schema.js";
import { RunCalls } from "../../../src/llm/run-calls.js";
import { tempDir } from "../../support/cli.js";
import { runStarted } from "../../support/events.js";

const RUN = "inbox-run";
const JOB = "abc123def456";
const recipe: RunRecipe = { configPath: "c.yaml", configText: "tasks: [internal:numeric_param]\n", runId: RUN, maxWorkers: 1, resume: "auto", timeoutSeconds: 0 };
const sessions: RunSession[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) s.close();
});

function open(invocation = 1, calls = new RunCalls({ journaling: false, price: () => 0, budget: {} }), commits: number[] = []) {
  // Each commit reaches the subscribers once, with its events.
  const counter = { name: "commit-counter", handle: (events: readonly unknown[]) => void commits.push(events.length), catchUp: () => {} };
  const session = RunSession.open(tempDir(), RUN, { command: "test", report: () => {}, subscribers: () => [counter] });
  sessions.push(session);
  const finished: string[] = [];
  const inbox = new RunInbox({ session, runId: RUN, invocation, recipe, calls, wanted: () => true, onFinished: (jobId, status) => finished.push(`${jobId}:${status}`), onLogError: () => {} });
  return { session, inbox, finished };
}

const ticket = (attempt = 1, invocation = 1, jobId = JOB): JobTicket => ({ runId: RUN, jobId, attempt, invocation });
const startEvents = (attempt: number, from = initialJobDecisionState(), jobId = JOB): NewEvent[] => decide(jobId, from, { type: "StartAttempt", attempt, invocation: 1, deadline: null });
const batch = (fields: Partial<EventBatch> & Pick<EventBatch, "attempt" | "seq" | "expectedVersion" | "events">): EventBatch => ({ runId: RUN, jobId: JOB, invocation: 1, delivery: "d1", contents: [], ...fields });
const skipped: JobOutcome = {
  feedback: "skipped",
  score_val_initial: null,
  score_val_final: null,
  score_val: null,
  score_test: null,
  time_seconds: 0,
  resolved: { optimizer: "o", guide: "g", logger: "l", trainer_kwargs: {}, optimizer_kwargs: {}, guide_kwargs: {}, logger_kwargs: {} },
  agent: "Agent",
  parameters: [],
  initial_values: {},
  final_values: {},
  best_values: {},
};
const unusable = (attempt: number): NewEvent[] => [{ type: "ReplyUnusable", job_id: JOB, data: { attempt, reason: "scripted" } } as NewEvent];

describe("the coordinator's inbox", () => {
  it("commits a batch at the expected version once, however often it is sent", () => {
    const { session, inbox } = open();
    const handout = inbox.claim(ticket());
    expect(handout.kind).toBe("run");
    const first = batch({ attempt: 1, seq: 1, expectedVersion: 0, events: startEvents(1) });
    expect(inbox.commit(first)).toEqual({ ok: true });
    expect(inbox.commit(first)).toEqual({ ok: true });
    expect(session.streamVersion(jobStream(JOB))).toBe(2);
    expect(inbox.commit(batch({ attempt: 1, seq: 2, expectedVersion: 2, events: unusable(1) }))).toEqual({ ok: true });
    expect(session.history(JOB).map((e) => e.type)).toEqual(["JobQueued", "JobTransitioned", "ReplyUnusable"]);
  });

  it("a ticket delivered again (its worker died) claims the next attempt; the earlier attempt's batches are refused", () => {
    const { session, inbox } = open();
    inbox.claim(ticket());
    expect(inbox.commit(batch({ attempt: 1, seq: 1, expectedVersion: 0, events: startEvents(1) }))).toEqual({ ok: true });
    const again = inbox.claim(ticket());
    expect(again.kind === "run" && again.attempt).toBe(2);
    expect(again.kind === "run" && again.history.map((e) => e.type)).toEqual(["JobQueued", "JobTransitioned"]);
    const late = inbox.commit(batch({ attempt: 1, seq: 2, expectedVersion: 2, events: unusable(1) }));
    expect(late.ok).toBe(false);
    expect(!late.ok && late.reason).toContain("superseded: attempt 2 runs now");
    const state = foldJobStream(session.history(JOB));
    expect(inbox.commit(batch({ attempt: 2, seq: 1, expectedVersion: 2, events: startEvents(2, state) }))).toEqual({ ok: true });
    expect(session.history(JOB).filter((e) => e.type === "JobQueued").map((e) => e.data)).toEqual([
      { attempt: 1, invocation: 1 },
      { attempt: 2, invocation: 1 },
    ]);
  });

  it("refuses a batch of another invocation, one at a stale version and one out of order, committing nothing", () => {
    const { session, inbox } = open(2);
    expect(inbox.claim(ticket(1, 1)).kind).toBe("nothing");
    inbox.claim(ticket(1, 2));
    expect(inbox.commit(batch({ attempt: 1, seq: 1, expectedVersion: 0, events: startEvents(1), invocation: 1 })).ok).toBe(false);
    expect(inbox.commit(batch({ attempt: 1, seq: 1, expectedVersion: 5, events: startEvents(1), invocation: 2 })).ok).toBe(false);
    expect(inbox.commit(batch({ attempt: 1, seq: 2, expectedVersion: 0, events: startEvents(1), invocation: 2 })).ok).toBe(false);
    expect(session.streamVersion(jobStream(JOB))).toBe(0);
  });

  it("admits requests into the run's budget across attempts, answers a re-sent batch the same, and counts what a dead worker held at its worst", () => {
    const calls = new RunCalls({ journaling: false, price: () => 0, budget: { max_tokens_per_run: 1000 } });
    const { inbox } = open(1, calls);
    inbox.claim(ticket());
    const worst = { tokens: 400, cost: 0 };
    const first = batch({ attempt: 1, seq: 1, expectedVersion: 0, events: startEvents(1), admissions: [worst, worst, worst] });
    const ack = inbox.commit(first);
    expect(ack.ok && ack.admitted?.map((r) => r === null)).toEqual([true, true, false]);
    // The third fits once the first two settle: said so, not refused for good.
    expect(ack.ok && ack.admitted?.[2]?.mayFitLater).toBe(true);
    expect(calls.ledger.reserved.tokens).toBe(800);
    // Sent again (a lost answer): the same verdicts, nothing reserved twice.
    expect(inbox.commit(first)).toEqual(ack);
    expect(calls.ledger.reserved.tokens).toBe(800);
    // One request billed 200: its reservation goes, its bill stays; 400 more fit beside the other's 400 reserved.
    const settled = inbox.commit(batch({ attempt: 1, seq: 2, expectedVersion: 2, events: [], settlements: [[worst, { tokens: 200, cost: 0 }]], admissions: [worst] }));
    expect(settled.ok && settled.admitted).toEqual([null]);
    expect(calls.ledger.spent.tokens).toBe(200);
    expect(calls.ledger.reserved.tokens).toBe(800);
    // Its worker dies: the ticket delivered again supersedes the attempt, whose two requests in flight count at their worst.
    inbox.claim(ticket());
    expect(calls.ledger.reserved.tokens).toBe(0);
    expect(calls.ledger.spent.tokens).toBe(1000);
    expect(calls.runBudgetSpent()).toBe("run token budget spent: 1000 of max_tokens_per_run 1000");
  });

  it("commits the batches read together in one transaction, each decided on its own: a refused one takes nothing from the others", () => {
    const commits: number[] = [];
    const { session, inbox, finished } = open(1, undefined, commits);
    const jobs = ["job0000000a", "job0000000b", "job0000000c"];
    // The run's state (which the subscribers follow) knows only the jobs of a start.
    session.appendRunEvents([runStarted(jobs)]);
    expect(commits).toEqual([1]);
    for (const jobId of jobs) expect(inbox.claim(ticket(1, 1, jobId)).kind).toBe("run");
    const [a, b, c] = jobs.map((jobId) => batch({ jobId, attempt: 1, seq: 1, expectedVersion: 0, events: startEvents(1, undefined, jobId) }));
    const stale = { ...b!, expectedVersion: 7 };
    const acks = inbox.commitAll([a!, stale, c!, a!]);
    expect(acks.map((ack) => ack.ok)).toEqual([true, false, true, true]);
    expect(!acks[1]!.ok && acks[1]!.reason).toContain("the stream is at version 0, the batch follows 7");
    expect(commits).toEqual([1, 4]);
    expect(jobs.map((jobId) => session.streamVersion(jobStream(jobId)))).toEqual([2, 0, 2]);
    // The refused batch's job goes on as if it had never been sent; a re-sent batch is answered as the first time.
    expect(inbox.commitAll([b!, a!])).toEqual([{ ok: true }, { ok: true }]);
    expect(commits).toEqual([1, 4, 2]);
    // A job's end counts once its batch committed.
    const [, second] = jobs;
    const state = foldJobStream(session.history(second!));
    const end = decide(second!, state, { type: "Advance", event: { type: "SKIP", reason: "scripted" }, outcome: skipped });
    expect(finished).toEqual([]);
    expect(inbox.commitAll([batch({ jobId: second!, attempt: 1, seq: 2, expectedVersion: 2, events: end })])[0]!.ok).toBe(true);
    expect(finished).toEqual([`${second}:skipped`]);
  });

  it("takes an attempt's batches sent one after another without waiting, and answers an older one sent again as the first time", () => {
    const calls = new RunCalls({ journaling: false, price: () => 0, budget: { max_tokens_per_run: 1000 } });
    const { session, inbox } = open(1, calls);
    inbox.claim(ticket());
    const worst = { tokens: 400, cost: 0 };
    const first = batch({ attempt: 1, seq: 1, expectedVersion: 0, events: startEvents(1), admissions: [worst] });
    const second = batch({ attempt: 1, seq: 2, expectedVersion: 2, events: unusable(1), admissions: [worst] });
    const [a1, a2] = inbox.commitAll([first, second]);
    expect([a1, a2]).toEqual([
      { ok: true, admitted: [null] },
      { ok: true, admitted: [null] },
    ]);
    expect(session.streamVersion(jobStream(JOB))).toBe(3);
    // Both sent again after a lost connection: the same answers, nothing reserved twice.
    expect(inbox.commitAll([first, second])).toEqual([a1, a2]);
    expect(inbox.commit(first)).toEqual(a1);
    expect(calls.ledger.reserved.tokens).toBe(800);
  });
});
