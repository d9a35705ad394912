/**
 * Runs one attempt of one job (spec §5.2). The machine drives: the runner looks up the phase of
 * the machine's state (`phases/job-phases.ts`: building → training → evaluating), runs it, and
 * records how it ended as a command to the job's recorder, whose decider steps the machine before
 * the next phase starts; it stops when the machine reaches a final state. The job timeout
 * (→ `timeout`) and interruption (the run was cancelled → `cancelled`) abort the signal handed to
 * tasks and trainers, so their child processes are killed.
 *
 * The attempt itself is plain async; its Effect (`runJob`) is the fiber the supervisor forks,
 * interrupts and joins (why the attempt stays out of Effect's and XState's runtimes:
 * docs/performance.md).
 */
import * as Clock from "effect/Clock";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import type { JobMachineEvent, TerminalJobState } from "../../machines/job.machine.js";
import { journalFromHistory } from "../llm/call-journal.js";
import { cutOffCalls } from "../events/projections/cut-off-calls.js";
import { BudgetExhausted, JobCalls } from "../llm/job-calls.js";
import { TaskCalls } from "../llm/task-calls.js";
import type { JobSpec } from "../config/matrix.js";
import type { EventBody, FinishedStatus } from "../events/event-schema.js";
import { finishedStatusOf } from "./job-decider.js";
import { isRecordError, openJobRecorder, type JobRecorder, type RecordError } from "./job-recorder.js";
import { AttemptAbort } from "./attempt-abort.js";
import { LlmSource, RunLog, TaskSource, TrainerSource } from "./run-services.js";
import { noProgress, outcomeOf, type AttemptScope, type JobServices } from "./phases/attempt-scope.js";
import { DeadlinePassed, errorText, firstLine, JobCancelled, JobStop, JobTimedOut, RunCancelled, stackOf } from "./phases/attempt-stops.js";
import { phaseOf } from "./phases/job-phases.js";

export interface JobAttempt {
  readonly spec: JobSpec;
  /** The attempt to run (earlier attempts are in `history`). */
  readonly attempt: number;
  /** The job's stream so far. */
  readonly history: readonly EventBody[];
}

export interface JobRunOptions {
  readonly invocation: number;
  /** Seconds; 0 = no limit. */
  readonly timeoutSeconds: number;
  /** Something went wrong that is not the job's outcome (reported, never recorded as its status). */
  readonly onWarning: (text: string) => void;
  /** Why a cancelled job was cancelled, when it was not the whole run (one job cancelled alone). */
  readonly cancelReason?: (jobId: string) => string | undefined;
}

/** The machine drives: state → phase → how it ended → recorded (the machine's next state), until a final state. */
async function drive(scope: AttemptScope): Promise<void> {
  const { recorder } = scope;
  while (!recorder.finished()) {
    const phase = phaseOf(recorder.state());
    if (phase === null) throw new Error(`the job machine is in '${recorder.state()}', which has no phase`);
    const end = await phase(scope);
    recorder.executeNow({ type: "Advance", event: end.event, ...(end.facts ? { facts: end.facts } : {}), ...(end.outcome ? { outcome: end.outcome } : {}) }, end.contents);
  }
}

/** The attempt's LLM calls, with the journal of the job's interrupted attempts (and their replies from the log). */
function jobCalls(job: JobAttempt, services: JobServices, recorder: JobRecorder, onBudgetExhausted: (reason: string) => void, onWarning: (text: string) => void): JobCalls {
  const run = services.llm.calls;
  const journal = run.journaling ? journalFromHistory(job.history) : { entries: [], unanswered: [] };
  let replies = new Map<string, string>();
  if (journal.entries.length > 0) {
    const read = services.log.contents(journal.entries.map((e) => e.replyRef));
    if (Either.isRight(read)) replies = read.right;
    else onWarning(`job ${job.spec.job_id}: the journal's replies could not be read (${read.left.message}); its calls go live`);
  }
  return new JobCalls({
    attempt: recorder.attempt(),
    run,
    journal,
    replies,
    // Calls of the interrupted attempts cut off without a bill count against the job's budget, at most.
    spentBefore: run.atMost(cutOffCalls(job.history, true)),
    onBudgetExhausted,
    ...(services.llm.budgetJudge !== undefined ? { judge: services.llm.budgetJudge } : {}),
    record: (facts, contents) => recorder.executeNow({ type: "RecordFacts", facts }, contents),
  });
}

/**
 * One attempt, as a promise, and `cancel` (the run was interrupted), which resolves once the
 * attempt has recorded how it ended. Every outcome the machine knows ends in a committed
 * `JobFinished`; the promise rejects only with a `RecordError` (the log cannot take the job's
 * events), when nothing more can be recorded.
 */
function startAttempt(job: JobAttempt, options: JobRunOptions, services: JobServices, now: number): { readonly done: Promise<FinishedStatus>; cancel(): Promise<void> } {
  // A timeout or cancel aborts the attempt, stopping the task's and trainer's work.
  const abort = new AttemptAbort();
  const done = (async () => {
    const recorder = openJobRecorder(services.log, job.spec.job_id, job.history, options.onWarning);
    const started = performance.now();
    const deadline = options.timeoutSeconds > 0 ? new Date(now + options.timeoutSeconds * 1000).toISOString() : null;
    recorder.executeNow({ type: "StartAttempt", attempt: job.attempt, invocation: options.invocation, deadline });

    // A spent budget stops training alone (the job then keeps its best state).
    const calls = jobCalls(job, services, recorder, (reason) => abort.abortTraining(new BudgetExhausted(reason)), options.onWarning);
    const forTask = services.llm.forTask;
    const taskCalls = forTask === undefined ? null : new TaskCalls(calls, (role) => forTask(job.spec, role), services.llm.stubAnswers === true);
    const scope: AttemptScope = { job: job.spec, services, recorder, abort, calls, taskCalls, started, progress: noProgress(), built: null };
    // The attempt ends while calls wait for replies: they are recorded aborted with its end.
    const end = (event: JobMachineEvent, detail?: string) =>
      recorder.executeNow({
        type: "Advance",
        event,
        facts: calls.abortInFlight(event.type === "TIME_OUT" ? "job_timeout" : "cancelled"),
        outcome: outcomeOf(scope),
        ...(detail !== undefined ? { detail } : {}),
      });

    // The deadline aborts the attempt's signal, which ends the phase under way: a timer, not a
    // fiber racing the job.
    const deadlineTimer = options.timeoutSeconds > 0 ? setTimeout(() => abort.abort(new DeadlinePassed()), options.timeoutSeconds * 1000) : null;
    try {
      await drive(scope);
    } catch (error) {
      if (isRecordError(error)) throw error;
      // Cancelled: recorded as such whatever the phase ended with (its error came from the abort).
      if (error instanceof JobCancelled || abort.signal.reason instanceof RunCancelled) {
        if (!recorder.finished()) end({ type: "CANCEL", reason: options.cancelReason?.(job.spec.job_id) ?? "cancelled: the run was interrupted before this job finished (it is re-run on resume)" });
      } else if (error instanceof JobStop) end(error.event, error.detail);
      else if (error instanceof JobTimedOut) end({ type: "TIME_OUT", reason: `job_timeout: exceeded ${options.timeoutSeconds}s (work interrupted, child processes killed)` });
      // Anything else is a bug: recorded as the job's internal error, with its stack.
      else end({ type: "FAIL", reason: `internal_error: ${firstLine(error)}` }, stackOf(error));
    } finally {
      if (deadlineTimer !== null) clearTimeout(deadlineTimer);
      // The job's loopback endpoint lives as long as the attempt: however it ended, it stops serving.
      await taskCalls?.close();
    }
    return finishedStatusOf(recorder.state() as TerminalJobState);
  })();
  return {
    done,
    cancel() {
      abort.abort(new RunCancelled());
      return done.then(
        () => undefined,
        (error: unknown) => options.onWarning(`job ${job.spec.job_id}: could not record the cancellation: ${errorText(error)}`),
      );
    },
  };
}

/**
 * One attempt of a job as a fiber: it ends with the status its committed `JobFinished` records,
 * or fails with a `RecordError` (the log cannot take the job's events). Interrupting it cancels
 * the attempt and waits until the cancellation is recorded.
 */
export function runJob(job: JobAttempt, options: JobRunOptions): Effect.Effect<FinishedStatus, RecordError, RunLog | TaskSource | TrainerSource | LlmSource> {
  return Effect.flatMap(Effect.context<RunLog | TaskSource | TrainerSource | LlmSource>(), (context) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.async<FinishedStatus, RecordError>((resume) => {
        const services: JobServices = { log: Context.get(context, RunLog), tasks: Context.get(context, TaskSource), trainers: Context.get(context, TrainerSource), llm: Context.get(context, LlmSource) };
        const attempt = startAttempt(job, options, services, now);
        attempt.done.then(
          (status) => resume(Effect.succeed(status)),
          (error: unknown) => resume(isRecordError(error) ? Effect.fail(error) : Effect.die(error)),
        );
        return Effect.promise(() => attempt.cancel());
      }),
    ),
  );
}
