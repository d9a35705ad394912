/**
 * What the coordinator (the `run` process, the only writer of the log) and the workers
 * (`trace-bench worker`, on any machine) say to each other when jobs run with `--executor bullmq`.
 * The transport (adapters/bullmq) carries these values as JSON; nothing here knows of Redis.
 *
 * A ticket names one job attempt to run; a worker claims it (the coordinator answers with the
 * handout: what the job's stream holds so far, the journal's replies and the config to rebuild the
 * job from), runs the same job runner as the local executor, and sends the events it records back
 * in numbered batches. The coordinator commits each batch at the stream's expected version and
 * acknowledges; a batch of a superseded or finished attempt is refused, and the worker stops.
 *
 * Nothing secret is in these values: API keys stay in the workers' environment.
 */
import type { EventBody, NewEvent } from "../events/event-schema.js";
import type { Refusal, Spend } from "../llm/budget-ledger.js";

/** One attempt of one job to run, as queued (the BullMQ job's data). */
export interface JobTicket {
  readonly runId: string;
  readonly jobId: string;
  /** The attempt the coordinator planned (a re-delivered ticket runs a later one: see `Handout.attempt`). */
  readonly attempt: number;
  /** The coordinator's invocation: a ticket of an earlier one (a killed coordinator) is stale. */
  readonly invocation: number;
}

/** What a worker needs to rebuild the run's jobs: the config file's text and the plan's overrides. */
export interface RunRecipe {
  readonly configPath: string;
  readonly configText: string;
  readonly runId: string;
  readonly maxWorkers: number;
  /** `--logger` given to `run` (absent: the config's loggers). */
  readonly logger?: string;
  readonly resume: string;
  readonly timeoutSeconds: number;
}

/** The coordinator's answer to a claim. */
export type Handout =
  | {
      readonly kind: "run";
      /** The attempt to run: the ticket's, or the next one when an earlier delivery started it (its worker died). */
      readonly attempt: number;
      readonly invocation: number;
      /** The job's stream as the log holds it (every attempt). */
      readonly history: readonly EventBody[];
      /** The journal's reply texts, by ref (mode real: answered calls are replayed, not re-sent). */
      readonly replies: Readonly<Record<string, string>>;
      readonly recipe: RunRecipe;
    }
  /** Nothing to run: the job finished, the ticket is of another invocation, or the run is stopping. */
  | { readonly kind: "nothing"; readonly why: string };

/** Events of one attempt, in order; `seq` numbers the attempt's batches from 1 (the idempotency key with the attempt). */
export interface EventBatch {
  readonly runId: string;
  readonly jobId: string;
  readonly attempt: number;
  readonly invocation: number;
  /** The claim's delivery id (unique): a batch's request id is its, so two runs of one name never share one. */
  readonly delivery: string;
  readonly seq: number;
  /** The stream's version the events follow. */
  readonly expectedVersion: number;
  readonly events: readonly NewEvent[];
  /** Texts the events refer to (prompts, replies), as [ref, text] pairs. */
  readonly contents: readonly (readonly [string, string])[];
  /**
   * Requests that ended since the last batch, as [reserved, billed]: the run's budget, which the
   * coordinator holds, releases what each reserved and keeps what it billed (reserved is nothing
   * for a request it did not admit).
   */
  readonly settlements?: readonly (readonly [Spend, Spend])[];
  /** Requests' worst cases that the run's budget must admit before they are sent, in order (after the events and settlements). */
  readonly admissions?: readonly Spend[];
}

/**
 * The coordinator's answer to a batch: committed (or committed before: a re-sent batch, answered
 * again as the first time), with the run budget's verdict on each admission (null: reserved); or
 * refused for good.
 */
export type BatchAck = { readonly ok: true; readonly admitted?: readonly (Refusal | null)[] } | { readonly ok: false; readonly reason: string };

/** A message from a worker to the coordinator. */
export type WorkerRequest = { readonly kind: "claim"; readonly ticket: JobTicket; readonly delivery: string } | { readonly kind: "batch"; readonly batch: EventBatch };

/** Stop a running attempt (Ctrl-C of the run, the dashboard's Cancel): published to every worker. */
export interface CancelNotice {
  readonly runId: string;
  readonly jobId: string;
  readonly reason?: string;
}

/** Ids safe in BullMQ (no `:`, which it reserves) and in Redis keys: run and job ids are plain names already. */
const plain = (text: string) => text.replace(/[^A-Za-z0-9._-]/g, "_");

/** The BullMQ job id of a ticket: from (run, job, invocation, attempt), so a re-queued ticket is the same job. */
export const ticketId = (t: Pick<JobTicket, "runId" | "jobId" | "attempt" | "invocation">): string => `${plain(t.runId)}.${plain(t.jobId)}.i${t.invocation}.a${t.attempt}`;

/**
 * The BullMQ job id of a request: a batch re-sent after a lost connection is the same job (added
 * once); each delivery of a ticket claims anew (a ticket delivered again after its worker died).
 */
export const requestId = (request: WorkerRequest): string =>
  request.kind === "claim"
    ? `claim.${ticketId(request.ticket)}.${plain(request.delivery)}`
    : `batch.${plain(request.batch.delivery)}.b${request.batch.seq}`;

/** The coordinator's side, as the transport calls it. */
export interface CoordinatorInbox {
  readonly claim: (ticket: JobTicket) => Handout;
  readonly commit: (batch: EventBatch) => BatchAck;
  /** Batches read together, committed in one transaction (each decided on its own: a refused one takes nothing from the others); their answers in order. */
  readonly commitAll: (batches: readonly EventBatch[]) => BatchAck[];
}

/** The coordinator's transport: queues tickets, serves the workers' requests, publishes cancels. */
export interface CoordinatorTransport {
  /** Starts serving `inbox` (the run's requests); resolves once connected. */
  readonly serve: (runId: string, inbox: CoordinatorInbox) => Promise<void>;
  /** Queues a ticket (a no-op when a ticket of that id is queued already). */
  readonly enqueue: (ticket: JobTicket) => Promise<void>;
  /**
   * Queues a ticket again: a no-op while one of that id waits or runs; one that failed (a worker
   * stopped or erred on it, it stalled too often) or is gone is replaced. Resolves with the failed
   * one's reason (null: none failed).
   */
  readonly requeue: (ticket: JobTicket) => Promise<string | null>;
  /** Removes a ticket no worker took yet; true if it was removed (false: a worker has it, or it is gone). */
  readonly withdraw: (ticket: JobTicket) => Promise<boolean>;
  readonly cancel: (notice: CancelNotice) => Promise<void>;
  /** Called after a lost connection came back (Redis restarted: the queue may have lost tickets). */
  readonly onReconnect: (listener: () => void) => void;
  readonly close: () => Promise<void>;
}

/** What a worker did with a ticket: ran its attempt (how it ended, in words), or gives it back unrun (the worker is stopping). */
export type TicketOutcome = { readonly kind: "ran"; readonly ended: string } | { readonly kind: "returned"; readonly why: string };

/** The worker's transport. */
export interface WorkerTransport {
  /** Sends a request and waits for the coordinator's answer, re-sending after a lost connection. */
  readonly request: <A>(request: WorkerRequest) => Promise<A>;
  /** Starts taking tickets, at most `concurrency` at once; `run` resolves when the attempt ended, or the ticket is to go back to the queue. */
  readonly take: (concurrency: number, run: (ticket: JobTicket) => Promise<TicketOutcome>) => Promise<void>;
  readonly onCancel: (listener: (notice: CancelNotice) => void) => void;
  readonly close: () => Promise<void>;
}
