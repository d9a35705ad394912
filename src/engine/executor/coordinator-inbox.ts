/**
 * The coordinator's answers to the workers, over the run session (this process is the only writer
 * of the log). A claim hands out the job's stream so far and the journal's replies; a batch is
 * committed at the stream's expected version before it is acknowledged; the batches the transport
 * read together commit in one transaction (`commitAll`), each still decided on its own.
 *
 * What makes at-least-once delivery record nothing twice:
 * - each job has at most one claimed attempt; a ticket delivered again (its worker died) claims the
 *   next attempt, and the earlier attempt's batches are refused from then on;
 * - a batch is identified by (job, attempt, seq): one already committed is acknowledged again
 *   without a second commit (the worker re-sent it after a lost connection);
 * - the events are folded through the job decider's `evolve` over the committed stream: a batch of
 *   a finished attempt, or one the machine refuses, is not committed;
 * - a ticket or batch of another invocation (a coordinator killed and started again) is refused.
 *
 * The run's budget is this process's (`RunCalls`), for every worker's jobs: a batch's admissions
 * reserve each request's worst case in it, or are refused as the local executor refuses them; its
 * settlements release what ended requests reserved and add what they billed. What an attempt still
 * holds reserved when it ends without settling (its worker died, it was superseded) counts as spent
 * at its worst: the provider may have billed those requests.
 */
import { jobStream, type EventBody, type FinishedStatus, type NewEvent } from "../../events/event-schema.js";
import type { BatchAck, CoordinatorInbox, EventBatch, Handout, JobTicket, RunRecipe } from "../../executor/executor-protocol.js";
import { NOTHING, type Refusal, type Spend } from "../../llm/budget-ledger.js";
import { journalFromHistory } from "../../llm/call-journal.js";
import type { RunCalls } from "../../llm/run-calls.js";
import { foldJobStream, type JobDecisionState } from "../job-decider.js";
import type { RunSession } from "../run-session.js";

interface Claim {
  readonly attempt: number;
  /** The job's stream as committed, folded. */
  state: JobDecisionState;
  /** The last batch committed. */
  seq: number;
  /** The answers to the last batches committed, by seq (a batch sent again is answered again the same). */
  readonly acks: Map<number, BatchAck>;
  /** What the attempt's admitted requests hold reserved in the run's budget, not settled yet. */
  reserved: Spend;
}

/** Answers kept per attempt for batches sent again (more than a worker's batches on their way at once). */
const ACKS_KEPT = 16;

/** A batch decided and appended to the log's open group, answered once the group committed. */
interface Accepted {
  readonly claim: Claim;
  readonly batch: EventBatch;
  readonly events: readonly NewEvent[];
  ack: BatchAck | null;
}

export interface InboxOptions {
  readonly session: RunSession;
  readonly runId: string;
  readonly invocation: number;
  readonly recipe: RunRecipe;
  /** The run's journaling and budget (this process holds it for every worker). */
  readonly calls: RunCalls;
  /** Whether the coordinator still waits on this job (false: cancelled, withdrawn, not of this invocation). */
  readonly wanted: (jobId: string) => boolean;
  /** The job's attempt recorded how it ended. */
  readonly onFinished: (jobId: string, status: FinishedStatus) => void;
  /** The log did not take a batch (disk full, read-only): the run cannot go on. */
  readonly onLogError: (jobId: string, error: Error) => void;
}

export class RunInbox implements CoordinatorInbox {
  private readonly claims = new Map<string, Claim>();

  constructor(private readonly options: InboxOptions) {}

  /** The attempt a worker was handed for `jobId` (null: none yet). */
  claimedAttempt(jobId: string): number | null {
    return this.claims.get(jobId)?.attempt ?? null;
  }

  /** No batch of the job's current attempt is taken any more (its worker is gone or was told to stop). */
  release(jobId: string): void {
    const claim = this.claims.get(jobId);
    if (claim !== undefined) this.settleLeftovers(claim);
    this.claims.delete(jobId);
  }

  /** Requests an attempt left reserved count at their worst (they may have been billed). */
  private settleLeftovers(claim: Claim): void {
    if (claim.reserved.tokens === 0 && claim.reserved.cost === 0) return;
    this.options.calls.ledger.settle(claim.reserved, claim.reserved);
    claim.reserved = NOTHING;
  }

  readonly claim = (ticket: JobTicket): Handout => {
    const { session, runId, invocation } = this.options;
    if (ticket.runId !== runId || ticket.invocation !== invocation) return { kind: "nothing", why: `ticket of invocation ${ticket.invocation}; the run is at invocation ${invocation}` };
    if (!this.options.wanted(ticket.jobId)) return { kind: "nothing", why: "the coordinator no longer waits on this job (cancelled or stopping)" };
    const history: EventBody[] = session.history(ticket.jobId).map((e) => ({ type: e.type, data: e.data }) as EventBody);
    const state = foldJobStream(history);
    if (state.finished && state.attempt >= ticket.attempt) return { kind: "nothing", why: `attempt ${state.attempt} already finished` };
    // A ticket delivered again after its worker died: that attempt is abandoned, the next one runs.
    const attempt = state.attempt >= ticket.attempt ? state.attempt + 1 : ticket.attempt;
    const earlier = this.claims.get(ticket.jobId);
    if (earlier !== undefined) this.settleLeftovers(earlier);
    this.claims.set(ticket.jobId, { attempt, state, seq: 0, acks: new Map(), reserved: NOTHING });
    const replies: Record<string, string> = {};
    if (this.options.calls.journaling) {
      const journal = journalFromHistory(history);
      for (const [ref, text] of session.contents(journal.entries.map((e) => e.replyRef))) replies[ref] = text;
    }
    return { kind: "run", attempt, invocation, history, replies, recipe: this.options.recipe };
  };

  readonly commit = (batch: EventBatch): BatchAck => this.commitAll([batch])[0]!;

  /**
   * Commits `batches` (of any jobs, in the order they came) in one transaction: each is decided on
   * its own, as `commit` would (its attempt, its idempotency key, its stream's expected version,
   * the job machine), and the accepted ones are appended to the log's open group, which commits
   * once for all of them. A refused batch appends nothing, so it takes nothing from the others.
   * What each batch admits into the run's budget, and its job's end, count only once it committed.
   */
  readonly commitAll = (batches: readonly EventBatch[]): BatchAck[] => {
    const { session } = this.options;
    const answers: (BatchAck | Accepted)[] = [];
    const accepted: Accepted[] = [];
    /** The batches accepted in this group, by claim and seq (a copy sent twice is answered as the first). */
    const inGroup = new Map<Claim, Map<number, Accepted>>();
    for (const batch of batches) {
      const claim = this.claims.get(batch.jobId);
      const same = claim === undefined ? undefined : inGroup.get(claim)?.get(batch.seq);
      if (same !== undefined && claim!.attempt === batch.attempt && batch.runId === this.options.runId && batch.invocation === this.options.invocation) {
        answers.push(same);
        continue;
      }
      const decided = this.decide(batch, claim);
      if (!("claim" in decided)) {
        answers.push(decided);
        continue;
      }
      accepted.push(decided);
      const ofClaim = inGroup.get(decided.claim) ?? new Map<number, Accepted>();
      inGroup.set(decided.claim, ofClaim.set(batch.seq, decided));
      answers.push(decided);
    }
    if (accepted.length > 0) session.commitPending();
    for (const a of accepted) a.ack = this.settleAccepted(a);
    return answers.map((answer) => ("claim" in answer ? answer.ack! : answer));
  };

  /** A refusal (or the answer to a batch committed before), or the batch accepted and appended to the log's open group. */
  private decide(batch: EventBatch, claim: Claim | undefined): BatchAck | Accepted {
    const { session, runId, invocation } = this.options;
    const refuse = (reason: string): BatchAck => ({ ok: false, reason: `job ${batch.jobId} attempt ${batch.attempt}: ${reason}` });
    if (batch.runId !== runId || batch.invocation !== invocation) return refuse(`a batch of invocation ${batch.invocation}; the run is at invocation ${invocation}`);
    if (claim === undefined || claim.attempt !== batch.attempt) {
      return refuse(claim === undefined ? "no attempt of this job is running (cancelled or stopped)" : `superseded: attempt ${claim.attempt} runs now`);
    }
    // Sent again after a lost connection: committed already, acknowledged again.
    if (batch.seq <= claim.seq) return claim.acks.get(batch.seq) ?? { ok: true };
    if (batch.seq !== claim.seq + 1) return refuse(`batch ${batch.seq} arrived before batch ${claim.seq + 1}`);
    if (claim.state.finished && claim.state.attempt === batch.attempt) return refuse(`attempt ${batch.attempt} already finished`);
    const stream = jobStream(batch.jobId);
    const version = session.streamVersion(stream);
    if (version !== batch.expectedVersion || version !== claim.state.version) return refuse(`the stream is at version ${version}, the batch follows ${batch.expectedVersion}`);
    const events = batch.events.map((e) => ({ ...e, job_id: batch.jobId }) as NewEvent);
    let next = claim.state;
    if (events.length > 0) {
      try {
        next = foldJobStream(events as unknown as EventBody[], claim.state);
      } catch (error) {
        return refuse(`the job machine refuses the batch: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (next.attempt !== batch.attempt) return refuse(`the batch holds events of attempt ${next.attempt}`);
      try {
        session.append(stream, batch.expectedVersion, events, new Map(batch.contents));
      } catch (error) {
        return this.logRefused(batch, error);
      }
    }
    // The claim moves on now, so that the job's next batch is decided against it; a group that
    // does not commit stops the run (onLogError), whatever the claim says.
    claim.state = next;
    claim.seq = batch.seq;
    return { claim, batch, events, ack: null };
  }

  /** An accepted batch once its group committed (or failed to): its budget, its job's end, its answer. */
  private settleAccepted({ claim, batch, events }: Accepted): BatchAck {
    if (events.length > 0) {
      // A group commit that failed says so only through the stream's version.
      const after = this.options.session.streamVersion(jobStream(batch.jobId));
      if (after < batch.expectedVersion + events.length) {
        const refusal = this.logRefused(batch, new Error(`the log did not take the events of ${jobStream(batch.jobId)} (at version ${after})`));
        claim.acks.set(batch.seq, refusal);
        return refusal;
      }
    }
    const admitted = this.budget(claim, batch);
    const ack: BatchAck = batch.admissions === undefined ? { ok: true } : { ok: true, admitted };
    claim.acks.set(batch.seq, ack);
    // A worker has at most MAX_IN_FLIGHT batches on their way: older answers are asked for no more.
    claim.acks.delete(batch.seq - ACKS_KEPT);
    const finished = events.find((e) => e.type === "JobFinished");
    if (finished !== undefined && finished.type === "JobFinished") {
      this.settleLeftovers(claim);
      this.options.onFinished(batch.jobId, finished.data.status);
    }
    return ack;
  }

  private logRefused(batch: EventBatch, error: unknown): BatchAck {
    const failure = error instanceof Error ? error : new Error(String(error));
    this.options.onLogError(batch.jobId, failure);
    return { ok: false, reason: `job ${batch.jobId} attempt ${batch.attempt}: the coordinator's log refused the batch: ${failure.message}` };
  }

  /** The batch's settlements, then its admissions, in the run's budget; the verdict on each admission. */
  private budget(claim: Claim, batch: EventBatch): (Refusal | null)[] {
    const { calls } = this.options;
    for (const [worst, billed] of batch.settlements ?? []) {
      calls.ledger.settle(worst, billed);
      claim.reserved = { tokens: Math.max(0, claim.reserved.tokens - worst.tokens), cost: Math.max(0, claim.reserved.cost - worst.cost) };
    }
    return (batch.admissions ?? []).map((worst) => {
      calls.noteWorstCase(worst);
      const refusal = calls.ledger.reserve(worst);
      if (refusal === null) claim.reserved = { tokens: claim.reserved.tokens + worst.tokens, cost: claim.reserved.cost + worst.cost };
      else if (!refusal.mayFitLater) calls.noteRunRefusal(refusal.reason);
      return refusal;
    });
  }
}
