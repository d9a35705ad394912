/**
 * What `trace-bench worker` does with a ticket: claim it from the coordinator, run the attempt
 * with the same job runner as the local executor (`runJob`), its log being an `AttemptOutbox`
 * that sends the recorded events to the coordinator, and end once every batch is committed or
 * refused. Each LLM request of the attempt waits until what was recorded before it (its
 * `LlmCallStarted`) is committed by the coordinator: nothing is sent that the log does not hold.
 *
 * A cancel notice for a running job interrupts its attempt (recorded `cancelled`, as locally); a
 * refused batch (the attempt was superseded) interrupts it too, and nothing more is recorded.
 *
 * A worker that stops (Ctrl-C) cancels its running attempts and gives back the tickets it took but
 * has not started (its claim pending, or answered once it was stopping): they go back to the queue
 * for another worker, neither failed (BullMQ would keep a failed ticket's id, and the coordinator
 * could not queue it again) nor run on a worker that is leaving.
 */
import { randomUUID } from "node:crypto";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import type { JobSpec } from "../../config/matrix.js";
import type { CancelNotice, Handout, JobTicket, RunRecipe, TicketOutcome, WorkerTransport } from "../../executor/executor-protocol.js";
import type { Embedder, Llm } from "../../llm/llm.js";
import { runJob } from "../job-runner.js";
import { LlmSource, RunLog, TaskSource, TrainerSource } from "../run-services.js";
import { AttemptOutbox } from "./attempt-outbox.js";
import type { RecipeLease } from "./recipe-services.js";

/** What a worker runs a run's jobs with, built once per run from its recipe. */
export interface WorkerRunServices {
  readonly jobs: ReadonlyMap<string, JobSpec>;
  readonly tasks: TaskSource["Type"];
  readonly trainers: TrainerSource["Type"];
  readonly llm: LlmSource["Type"];
}

export interface WorkerOptions {
  readonly transport: WorkerTransport;
  readonly concurrency: number;
  /** The run's services for one attempt, released when it ended (each run has its own: see RecipeServices). */
  readonly servicesFor: (recipe: RunRecipe) => Promise<RecipeLease<WorkerRunServices>>;
  /** One line for the worker's console. */
  readonly say: (text: string) => void;
  /** Called as each ticket is taken, before it is claimed (a test hook: the worker may stop there). */
  readonly onTaken?: () => void;
}

/** `llm` whose requests leave only once the attempt's log is committed up to them. */
function gated(llm: Llm, outbox: AttemptOutbox): Llm {
  return {
    model: llm.model,
    complete: async (request, signal) => {
      await outbox.flushed();
      return llm.complete(request, signal);
    },
  };
}

function gatedEmbedder(embedder: Embedder, outbox: AttemptOutbox): Embedder {
  return {
    model: embedder.model,
    embed: async (request, signal) => {
      await outbox.flushed();
      return embedder.embed(request, signal);
    },
  };
}

const keyOf = (runId: string, jobId: string) => `${runId}/${jobId}`;

export class WorkerAttempts {
  /** Running attempts by run/job: how to cancel each. */
  private readonly running = new Map<string, (reason: string | undefined) => void>();
  private readonly cancelReasons = new Map<string, string>();
  private stopping = false;
  private stopped!: () => void;
  /** Resolves once the worker stops (a claim still pending then is given up). */
  private readonly stop = new Promise<void>((resolve) => (this.stopped = resolve));

  constructor(private readonly options: WorkerOptions) {
    options.transport.onCancel((notice) => this.cancel(notice));
  }

  /** Takes tickets until the transport is closed. */
  start(): Promise<void> {
    return this.options.transport.take(this.options.concurrency, (ticket) => this.runTicket(ticket));
  }

  private cancel(notice: CancelNotice): void {
    this.running.get(keyOf(notice.runId, notice.jobId))?.(notice.reason);
  }

  /** Cancels every running attempt (the worker is stopping: each records `cancelled`); tickets not started yet are given back. */
  cancelAll(): void {
    this.stopping = true;
    this.stopped();
    for (const stop of this.running.values()) stop(undefined);
  }

  get busy(): number {
    return this.running.size;
  }

  async runTicket(ticket: JobTicket): Promise<TicketOutcome> {
    const { transport } = this.options;
    const delivery = randomUUID();
    this.options.onTaken?.();
    const giveBack: TicketOutcome = { kind: "returned", why: "the worker is stopping" };
    if (this.stopping) return giveBack;
    const claim = transport.request<Handout>({ kind: "claim", ticket, delivery });
    // The claim is given up when the worker stops: its answer (a "run" of an attempt nobody runs)
    // is superseded by the next worker's claim of the ticket given back.
    claim.catch(() => {});
    const handout = await Promise.race([claim, this.stop.then(() => null)]);
    if (handout === null || this.stopping) return giveBack;
    if (handout.kind !== "run") return { kind: "ran", ended: `not run: ${handout.why}` };
    const lease = await this.options.servicesFor(handout.recipe);
    try {
      if (this.stopping) return giveBack;
      return { kind: "ran", ended: await this.runAttempt(ticket, handout, delivery, lease.services) };
    } finally {
      lease.release();
    }
  }

  private async runAttempt(ticket: JobTicket, handout: Extract<Handout, { kind: "run" }>, delivery: string, services: WorkerRunServices): Promise<string> {
    const { transport, say } = this.options;
    const spec = services.jobs.get(ticket.jobId);
    if (spec === undefined) throw new Error(`job ${ticket.jobId} is not in this worker's expansion of the run's config (are the task suites the same as the coordinator's?)`);
    const key = keyOf(ticket.runId, ticket.jobId);
    let fiber: Fiber.RuntimeFiber<unknown, unknown> | null = null;
    const outbox = new AttemptOutbox({
      runId: ticket.runId,
      jobId: ticket.jobId,
      attempt: handout.attempt,
      invocation: handout.invocation,
      delivery,
      version: handout.history.length,
      replies: new Map(Object.entries(handout.replies)),
      send: (batch) => transport.request({ kind: "batch", batch }),
      onRefused: (reason) => {
        say(`job ${ticket.jobId}: the coordinator refused its events (${reason}); stopping it`);
        if (fiber !== null) Effect.runFork(Fiber.interrupt(fiber));
      },
    });
    const llm = services.llm;
    const forTask = llm.forTask;
    const forEmbedding = llm.forEmbedding;
    const llmSource: LlmSource["Type"] = {
      calls: llm.calls,
      forJob: (job, bundle) => gated(llm.forJob(job, bundle), outbox),
      ...(forTask !== undefined ? { forTask: (job: JobSpec, role: Parameters<typeof forTask>[1]) => gated(forTask(job, role), outbox) } : {}),
      ...(forEmbedding !== undefined ? { forEmbedding: (job: JobSpec, model?: string) => gatedEmbedder(forEmbedding(job, model), outbox) } : {}),
      ...(llm.stubAnswers !== undefined ? { stubAnswers: llm.stubAnswers } : {}),
      // The run's budget is the coordinator's, for every worker's jobs.
      budgetJudge: outbox.judge(),
    };
    const program = runJob(
      { spec, attempt: handout.attempt, history: handout.history },
      { invocation: handout.invocation, timeoutSeconds: handout.recipe.timeoutSeconds, onWarning: (text) => say(`warning: ${text}`), cancelReason: (jobId) => this.cancelReasons.get(keyOf(ticket.runId, jobId)) },
    ).pipe(
      Effect.provideService(RunLog, outbox.runLog()),
      Effect.provideService(TaskSource, services.tasks),
      Effect.provideService(TrainerSource, services.trainers),
      Effect.provideService(LlmSource, llmSource),
    );
    const started = Effect.runFork(program);
    fiber = started;
    this.running.set(key, (reason) => {
      if (reason !== undefined) this.cancelReasons.set(key, reason);
      Effect.runFork(Fiber.interrupt(started));
    });
    say(`job ${ticket.jobId} attempt ${handout.attempt}: started`);
    try {
      const exit = await Effect.runPromise(Fiber.await(started));
      await outbox.settled();
      const ended = Exit.isSuccess(exit) ? String(exit.value) : outbox.refusal !== null ? `stopped (${outbox.refusal})` : Exit.isInterrupted(exit) ? "cancelled" : `not recorded: ${String(Exit.isFailure(exit) ? exit.cause : "")}`;
      say(`job ${ticket.jobId} attempt ${handout.attempt}: ${ended}`);
      return ended;
    } finally {
      this.running.delete(key);
      this.cancelReasons.delete(key);
    }
  }
}
