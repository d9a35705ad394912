/**
 * The coordinator's executor for `--executor bullmq`: each job attempt the supervisor starts is a
 * ticket queued for the workers; the attempt's fiber waits until the worker's batches commit the
 * job's `JobFinished` (RunInbox). Interrupting the fiber (Ctrl-C, the dashboard's Cancel) withdraws
 * a ticket no worker took, or tells the workers to cancel the attempt and waits until its
 * cancellation is committed; a worker that does not answer within `CANCEL_GRACE_MS` (dead, cut
 * off) leaves the job unfinished, re-run on resume, and its late batches are refused.
 *
 * After Redis came back from a restart, every ticket of an unfinished job is queued again: queuing
 * is idempotent (the ticket's id is its job's), so a Redis that kept its data changes nothing, and
 * one that lost it (no persistence) gets its queue back. A ticket a worker was running is then run
 * again as a new attempt (its answered LLM calls replayed from the journal, not paid twice; the
 * running attempt is refused from then on): without its BullMQ job, nothing would re-deliver it if
 * that worker died, and the run would wait for it forever. Besides, every RECHECK_MS each ticket of
 * an unfinished job not queued within RECHECK_MS is queued again (`requeue`: a no-op while it waits
 * or runs): a ticket lost another way (once in 10 trials of bench/redis-restart.mjs before this, a
 * ticket queued again after a restart was never taken, and the run hung) comes back within
 * seconds, and so does one BullMQ failed (a worker stopped or erred on it, it stalled more than
 * MAX_STALLED times): BullMQ keeps a failed job's id, so adding it again alone was a no-op and the
 * run waited for the job for ever. Run again, such a ticket claims a new attempt: the failed
 * one's batches are refused, nothing is recorded or paid twice.
 */
import * as Effect from "effect/Effect";
import type { FinishedStatus } from "../../events/event-schema.js";
import type { CoordinatorTransport, JobTicket, RunRecipe } from "../../executor/executor-protocol.js";
import type { RunCalls } from "../../llm/run-calls.js";
import { JobNotRecorded, type RecordError } from "../job-recorder.js";
import type { JobAttempt, JobRunOptions } from "../job-runner.js";
import type { RunSession } from "../run-session.js";
import { RunInbox } from "./coordinator-inbox.js";

/** How long a cancelled attempt's worker has to record its cancellation before the coordinator gives up on it. */
export const CANCEL_GRACE_MS = 15_000;
/** How often the tickets of unfinished jobs are queued again where lost or failed, and how old they must be. */
export const RECHECK_MS = 5_000;

export interface RemoteExecutorSettings {
  readonly transport: CoordinatorTransport;
  readonly recipe: RunRecipe;
  readonly report: (text: string) => void;
}

interface Waiting {
  readonly ticket: JobTicket;
  readonly resolve: (status: FinishedStatus) => void;
  readonly reject: (error: RecordError) => void;
  cancelling: boolean;
  /** When it was last queued (Date.now()). */
  queuedAt: number;
}

export class RemoteExecutor {
  private readonly waiting = new Map<string, Waiting>();
  private readonly inbox: RunInbox;
  private recheck: NodeJS.Timeout | undefined;

  private constructor(
    private readonly settings: RemoteExecutorSettings,
    private readonly runId: string,
    private readonly invocation: number,
    session: RunSession,
    calls: RunCalls,
  ) {
    this.inbox = new RunInbox({
      session,
      runId,
      invocation,
      recipe: settings.recipe,
      calls,
      wanted: (jobId) => {
        const w = this.waiting.get(jobId);
        return w !== undefined && !w.cancelling;
      },
      onFinished: (jobId, status) => {
        const w = this.waiting.get(jobId);
        this.waiting.delete(jobId);
        this.inbox.release(jobId);
        w?.resolve(status);
      },
      onLogError: (jobId, error) => {
        const w = this.waiting.get(jobId);
        this.waiting.delete(jobId);
        w?.reject(new JobNotRecorded({ jobId, cause: error }));
      },
    });
  }

  /** Serves the run's requests on the transport; resolves once connected. */
  /** `calls`: the run's journaling and budget, which this process holds for every worker. */
  static async start(settings: RemoteExecutorSettings, runId: string, invocation: number, session: RunSession, calls: RunCalls): Promise<RemoteExecutor> {
    const executor = new RemoteExecutor(settings, runId, invocation, session, calls);
    settings.transport.onReconnect(() => executor.requeue());
    await settings.transport.serve(runId, executor.inbox);
    executor.recheck = setInterval(() => executor.requeueStale(), RECHECK_MS);
    executor.recheck.unref();
    return executor;
  }

  /** Queues again every ticket of an unfinished job (Redis may have lost them, running ones included). */
  private requeue(): void {
    const unfinished = [...this.waiting.values()].filter((w) => !w.cancelling);
    if (unfinished.length > 0) this.settings.report(`Redis is back: queuing again the ${unfinished.length} unfinished job(s) (a no-op for those Redis kept)`);
    for (const w of unfinished) this.enqueueAgain(w);
  }

  /** Queues again each ticket of an unfinished job, last queued RECHECK_MS ago or more, that Redis lost or BullMQ failed. */
  private requeueStale(): void {
    const now = Date.now();
    for (const w of this.waiting.values()) {
      if (w.cancelling || now - w.queuedAt < RECHECK_MS) continue;
      w.queuedAt = now;
      const { jobId } = w.ticket;
      this.settings.transport.requeue(w.ticket).then(
        (failed) => {
          if (failed !== null && this.waiting.get(jobId) === w) this.settings.report(`job ${jobId}: its ticket failed on a worker (${failed}); queued again`);
        },
        (error: unknown) => this.settings.report(`could not queue job ${jobId} again: ${String(error)}`),
      );
    }
  }

  private enqueueAgain(w: Waiting): void {
    w.queuedAt = Date.now();
    this.settings.transport.enqueue(w.ticket).catch((error: unknown) => this.settings.report(`could not queue job ${w.ticket.jobId} again: ${String(error)}`));
  }

  /** One attempt run by a worker, as the supervisor's fiber (the local executor's `runJob` counterpart). */
  runAttempt(job: JobAttempt, options: JobRunOptions): Effect.Effect<FinishedStatus, RecordError> {
    const jobId = job.spec.job_id;
    const ticket: JobTicket = { runId: this.runId, jobId, attempt: job.attempt, invocation: this.invocation };
    return Effect.async<FinishedStatus, RecordError>((resume) => {
      let finished: (() => void) | null = null;
      const ended = new Promise<void>((resolve) => {
        finished = resolve;
      });
      const waiting: Waiting = {
        ticket,
        resolve: (status) => {
          finished?.();
          resume(Effect.succeed(status));
        },
        reject: (error) => {
          finished?.();
          resume(Effect.fail(error));
        },
        cancelling: false,
        queuedAt: Date.now(),
      };
      this.waiting.set(jobId, waiting);
      this.settings.transport.enqueue(ticket).catch((error: unknown) => {
        this.waiting.delete(jobId);
        waiting.reject(new JobNotRecorded({ jobId, cause: new Error(`could not queue the job in Redis: ${error instanceof Error ? error.message : String(error)}`) }));
      });
      return Effect.promise(() => this.cancel(waiting, options.cancelReason?.(jobId), ended));
    });
  }

  private async cancel(waiting: Waiting, reason: string | undefined, ended: Promise<void>): Promise<void> {
    const { jobId } = waiting.ticket;
    if (this.waiting.get(jobId) !== waiting) return;
    waiting.cancelling = true;
    const withdrawn = await this.settings.transport.withdraw(waiting.ticket).catch(() => false);
    if (withdrawn || this.inbox.claimedAttempt(jobId) === null) {
      // No worker runs it: nothing to record (it is re-run on resume).
      this.waiting.delete(jobId);
      this.inbox.release(jobId);
      return;
    }
    await this.settings.transport.cancel({ runId: this.runId, jobId, ...(reason !== undefined ? { reason } : {}) }).catch((error: unknown) => this.settings.report(`could not tell the workers to cancel job ${jobId}: ${String(error)}`));
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = await Promise.race([ended.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), CANCEL_GRACE_MS)))]);
    clearTimeout(timer);
    if (gaveUp) {
      this.settings.report(`job ${jobId}: its worker did not record the cancellation within ${CANCEL_GRACE_MS / 1000}s; the job stays unfinished (re-run on resume)`);
      this.waiting.delete(jobId);
      this.inbox.release(jobId);
    }
  }

  /** Stops serving the run (the transport is closed by its owner). */
  stop(): void {
    clearInterval(this.recheck);
    for (const jobId of this.waiting.keys()) this.inbox.release(jobId);
    this.waiting.clear();
  }
}
