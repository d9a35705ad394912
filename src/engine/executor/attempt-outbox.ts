/**
 * A worker's log for one attempt: the job runner appends to it as to the local log (synchronously,
 * at the version it expects), and it sends what was appended to the coordinator in numbered
 * batches, in order, up to MAX_IN_FLIGHT of them on their way at once; the coordinator commits each
 * at the stream's expected version.
 *
 * A batch leaves at once when something waits on it: an LLM call's events (the request waits for
 * its `LlmCallStarted`; a reply is journaled as soon as it came, as the local log commits them at
 * once), an admission or settlement of the run's budget, the attempt's `JobFinished`, a `flushed()`
 * or `settled()` caller. Other events linger up to LINGER_MS to join them: a short job's whole
 * attempt goes in one batch (one request, one commit at the coordinator) instead of one per phase.
 * A worker that dies loses at most that long of them: its attempt is run again anyway.
 *
 * `flushed()` resolves once everything appended so far is committed: an LLM request waits for it,
 * so its `LlmCallStarted` is in the log before the request leaves (the coordinator's journal sees
 * it). The run's budget is the coordinator's: `judge()` sends it each request's worst case to admit
 * and each ended request's bill with the batches, in order with the events. When the coordinator refuses a batch (the attempt was superseded or finished,
 * the run moved on), the outbox is dead: `onRefused` stops the attempt and every later append fails.
 */
import * as Either from "effect/Either";
import type { Contents } from "../../events/content-ref.js";
import { WrongExpectedVersionError } from "../../events/event-log-errors.js";
import { jobStream, type NewEvent, type StoredEvent } from "../../events/event-schema.js";
import type { BatchAck, EventBatch } from "../../executor/executor-protocol.js";
import type { Refusal, Spend } from "../../llm/budget-ledger.js";
import type { RunBudgetJudge } from "../../llm/run-budget-judge.js";
import type { RunLog } from "../run-services.js";

/**
 * Batches on their way at once: a batch does not wait for the one before it to be answered (an LLM
 * call's `LlmCallStarted` follows the last call's outcome without a round trip in between); the
 * coordinator takes them in order, and refuses every one after a refused one.
 */
const MAX_IN_FLIGHT = 4;
/** How long events nobody waits on may wait for more before they are sent. */
export const LINGER_MS = 50;
/** Event types whose batch leaves at once (see above). */
const SEND_AT_ONCE: ReadonlySet<string> = new Set(["LlmCallStarted", "LlmCallCompleted", "LlmCallFailed", "LlmCallAborted", "JobFinished"]);

export interface AttemptOutboxOptions {
  readonly runId: string;
  readonly jobId: string;
  readonly attempt: number;
  readonly invocation: number;
  /** The claim's delivery id (names the batches' requests). */
  readonly delivery: string;
  /** The stream's version the handout's history ends at. */
  readonly version: number;
  readonly replies: ReadonlyMap<string, string>;
  /** Sends one batch; resolves with the coordinator's answer (the transport re-sends after a lost connection). */
  readonly send: (batch: EventBatch) => Promise<BatchAck>;
  /** The coordinator refused a batch: the attempt must stop. */
  readonly onRefused: (reason: string) => void;
  /** How long events nobody waits on may wait (default LINGER_MS). */
  readonly lingerMs?: number;
}

/** The coordinator refused the attempt's events: nothing more of it is recorded. */
export class AttemptRefused extends Error {
  override readonly name = "AttemptRefused";
}

interface Admission {
  readonly worst: Spend;
  readonly resolve: (refusal: Refusal | null) => void;
  readonly reject: (error: Error) => void;
}

/** A batch on its way: what its answer settles. */
interface Sent {
  readonly events: number;
  readonly admissions: readonly Admission[];
  ack: BatchAck | null;
}

/** What the next batch carries. */
class Pending {
  readonly events: NewEvent[] = [];
  readonly contents = new Map<string, string>();
  readonly settlements: (readonly [Spend, Spend])[] = [];
  readonly admissions: Admission[] = [];
  /** Something waits on this batch: it leaves at once. */
  urgent = false;
  static empty(): Pending {
    return new Pending();
  }
  get isEmpty(): boolean {
    return this.events.length === 0 && this.settlements.length === 0 && this.admissions.length === 0;
  }
}

export class AttemptOutbox {
  /** The version after everything appended (what the next append must expect). */
  private version: number;
  /** The version the coordinator committed up to. */
  private committed: number;
  private pending = Pending.empty();
  private seq = 0;
  /** The version after every batch sent (what the next batch follows). */
  private sentVersion: number;
  /** Batches on their way, in the order sent. */
  private inFlight: Sent[] = [];
  /** A send is scheduled (a microtask away). */
  private starting = false;
  private idle: (() => void)[] = [];
  private refused: string | null = null;
  private waiters: { version: number; resolve: () => void; reject: (error: Error) => void }[] = [];
  private linger: NodeJS.Timeout | null = null;

  constructor(private readonly options: AttemptOutboxOptions) {
    this.version = options.version;
    this.committed = options.version;
    this.sentVersion = options.version;
  }

  private get stream(): string {
    return jobStream(this.options.jobId);
  }

  /** The job runner's view of the log (RunLog). */
  runLog(): RunLog["Type"] {
    return {
      append: (stream, expected, events, contents) => this.append(stream, expected, events, contents),
      streamVersion: (stream) => Either.right(stream === this.stream ? this.version : 0),
      contents: (refs) => Either.right(new Map([...refs].flatMap((ref) => (this.options.replies.has(ref) ? [[ref, this.options.replies.get(ref)!] as const] : [])))),
    };
  }

  private append(stream: string, expected: number, events: readonly NewEvent[], contents?: Contents): Either.Either<StoredEvent[], WrongExpectedVersionError> {
    if (stream !== this.stream || expected !== this.version || this.refused !== null) {
      return Either.left(new WrongExpectedVersionError({ stream, expected, actual: this.refused !== null ? -1 : this.version }));
    }
    this.pending.events.push(...events);
    for (const [ref, text] of contents ?? []) this.pending.contents.set(ref, text);
    this.version += events.length;
    this.kick(events.some((e) => SEND_AT_ONCE.has(e.type)));
    // The job runner reads nothing back from the stored events: the log (the coordinator's) numbers them.
    return Either.right([]);
  }

  /** The run's budget as the coordinator holds it, for this attempt's calls. */
  judge(): RunBudgetJudge {
    return {
      admit: (worst) => {
        if (this.refused !== null) return Promise.reject(new AttemptRefused(this.refused));
        return new Promise<Refusal | null>((resolve, reject) => {
          this.pending.admissions.push({ worst, resolve, reject });
          this.kick(true);
        });
      },
      settle: (worst, billed) => {
        if (this.refused !== null) return;
        this.pending.settlements.push([worst, billed]);
        this.kick(true);
      },
    };
  }

  /** Why the coordinator refused the attempt, or null. */
  get refusal(): string | null {
    return this.refused;
  }

  /** Resolves once everything appended so far is committed; rejects with `AttemptRefused`. */
  flushed(): Promise<void> {
    if (this.refused !== null) return Promise.reject(new AttemptRefused(this.refused));
    if (this.committed >= this.version) return Promise.resolve();
    const waiting = new Promise<void>((resolve, reject) => this.waiters.push({ version: this.version, resolve, reject }));
    // Pending empty: what it waits on is on its way already.
    if (!this.pending.isEmpty) this.kick(true);
    return waiting;
  }

  /** Sends what is pending: now if `urgent` (or something already waits on it), else after LINGER_MS. */
  private kick(urgent: boolean): void {
    if (urgent) this.pending.urgent = true;
    if (this.refused !== null || this.pending.isEmpty) return;
    if (!this.pending.urgent) {
      this.linger ??= setTimeout(() => {
        this.linger = null;
        this.kick(true);
      }, this.options.lingerMs ?? LINGER_MS);
      return;
    }
    if (this.starting || this.inFlight.length >= MAX_IN_FLIGHT) return;
    this.starting = true;
    // Sent a microtask later: what the caller adds in the same turn (a call's settlement right
    // after its outcome) goes in the same batch.
    queueMicrotask(() => {
      this.starting = false;
      this.sendPending();
    });
  }

  private sendPending(): void {
    if (this.linger !== null) clearTimeout(this.linger);
    this.linger = null;
    while (!this.pending.isEmpty && this.pending.urgent && this.refused === null && this.inFlight.length < MAX_IN_FLIGHT) {
      const { events, contents, settlements, admissions } = this.pending;
      this.pending = Pending.empty();
      this.seq += 1;
      const { runId, jobId, attempt, invocation, delivery } = this.options;
      const batch: EventBatch = {
        runId,
        jobId,
        attempt,
        invocation,
        delivery,
        seq: this.seq,
        // The batches before it on their way are committed first (the coordinator takes them in order).
        expectedVersion: this.sentVersion,
        events,
        contents: [...contents],
        ...(settlements.length > 0 ? { settlements } : {}),
        ...(admissions.length > 0 ? { admissions: admissions.map((a) => a.worst) } : {}),
      };
      this.sentVersion += events.length;
      const sent: Sent = { events: events.length, admissions, ack: null };
      this.inFlight.push(sent);
      this.options.send(batch).then(
        (ack) => this.answered(sent, ack),
        (error: unknown) => this.answered(sent, { ok: false, reason: `the batch could not be sent: ${error instanceof Error ? error.message : String(error)}` }),
      );
    }
    // What is left, nobody waiting on it, lingers.
    if (!this.pending.isEmpty && !this.pending.urgent) this.kick(false);
    this.noteIdle();
  }

  /** A batch's answer: the answers are taken in the order the batches were sent. */
  private answered(sent: Sent, ack: BatchAck): void {
    sent.ack = ack;
    while (this.inFlight.length > 0 && this.inFlight[0]!.ack !== null) {
      const { events, admissions, ack: answer } = this.inFlight.shift()!;
      if (this.refused !== null) {
        for (const a of admissions) a.reject(new AttemptRefused(this.refused));
        continue;
      }
      if (!answer!.ok) {
        this.refuse(answer!.reason, admissions);
        continue;
      }
      this.committed += events;
      const ready = this.waiters.filter((w) => w.version <= this.committed);
      this.waiters = this.waiters.filter((w) => w.version > this.committed);
      for (const w of ready) w.resolve();
      const verdicts = answer!.admitted ?? [];
      admissions.forEach((a, i) => a.resolve(i < verdicts.length ? verdicts[i]! : { reason: "the coordinator did not answer the run budget's admission", mayFitLater: false }));
    }
    this.kick(false);
    this.noteIdle();
  }

  private refuse(reason: string, admissions: readonly Admission[]): void {
    this.refused = reason;
    if (this.linger !== null) clearTimeout(this.linger);
    this.linger = null;
    for (const w of this.waiters.splice(0)) w.reject(new AttemptRefused(reason));
    for (const a of [...admissions, ...this.pending.admissions.splice(0)]) a.reject(new AttemptRefused(reason));
    this.options.onRefused(reason);
  }

  /** Wakes `settled()` once nothing is on its way and nothing is left to send. */
  private noteIdle(): void {
    if (this.inFlight.length > 0 || this.starting) return;
    if (!this.pending.isEmpty && this.refused === null) return;
    for (const wake of this.idle.splice(0)) wake();
  }

  /** Resolves once every append is committed or refused (the attempt's end). */
  async settled(): Promise<void> {
    for (;;) {
      if (!this.pending.isEmpty && this.refused === null) this.kick(true);
      if (this.inFlight.length === 0 && !this.starting && (this.pending.isEmpty || this.refused !== null)) return;
      await new Promise<void>((resolve) => this.idle.push(resolve));
    }
  }
}
