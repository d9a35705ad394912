/**
 * Runs one attempt of one job (spec §5.2): build a fresh bundle → initial evaluation → train →
 * final evaluation → test evaluation with the best values. The machine decides: each phase's
 * outcome becomes a command to the job's recorder, whose decider records it before the next
 * phase starts. The job timeout (→ `timeout`) and interruption (the run was cancelled →
 * `cancelled`) abort the signal handed to tasks and trainers, so their child processes are killed.
 *
 * The attempt itself is one async function; its Effect (`runJob`) is the fiber the supervisor
 * forks, interrupts and joins: a profile of 500 trivial jobs put a third of their CPU time in
 * Effect's runtime, and the attempt needs nothing from it.
 */
import * as Clock from "effect/Clock";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import type { JobMachineEvent, TerminalJobState } from "../../machines/job.machine.js";
import { toPlain } from "../config/kwargs.js";
import { journalFromHistory } from "../llm/call-journal.js";
import { cutOffCalls } from "../events/projections/cut-off-calls.js";
import { BudgetExhausted, JobCalls } from "../llm/job-calls.js";
import type { JobSpec } from "../config/matrix.js";
import type { EventBody, FinishedStatus } from "../events/event-schema.js";
import { defaultOptimizerFor } from "../opt/default-optimizer.js";
import { initialValues, trainableParameters, type ParameterValues } from "../domain/parameter.js";
import type { Trainer } from "../opt/trainer.js";
import { evaluationSplit, scoreDataset, type DatasetScore } from "../tasks/score-dataset.js";
import type { TaskBundle } from "../domain/task-bundle.js";
import { finishedStatusOf, type JobFact, type JobOutcome } from "./job-decider.js";
import { isRecordError, openJobRecorder, type JobRecorder, type RecordError } from "./job-recorder.js";
import { AttemptAbort } from "./attempt-abort.js";
import { resolvedMetadata, type ResolvedMetadata } from "./resolved-metadata.js";
import { LlmSource, RunLog, TaskSource, TrainerSource } from "./run-services.js";
import { createTrainerContext } from "./trainer-context.js";
import { CandidateLedger } from "./candidate-ledger.js";
import { noValidCandidateReason } from "./no-valid-candidate.js";

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
}

/** The services an attempt works with (the run's, or a test's). */
interface JobServices {
  readonly log: RunLog["Type"];
  readonly tasks: TaskSource["Type"];
  readonly trainers: TrainerSource["Type"];
  readonly llm: LlmSource["Type"];
}

/** What the attempt has established so far; a timeout or cancel reports it as it stands. */
interface Progress {
  bundle: TaskBundle | null;
  initial: ParameterValues | null;
  initialScore: DatasetScore | null;
  latest: ParameterValues | null;
  final: DatasetScore | null;
  test: DatasetScore | null;
  best: ParameterValues | null;
  /** The feedback an `ok` job reports: its final evaluation's. */
  feedback: string;
  /** The job's resolved optimizer, guide and logger with their kwargs, once its task is loaded. */
  resolved: ResolvedMetadata | null;
  /** Training ended and its optimizer never proposed a change. */
  noSearch: boolean;
}

/** The attempt stops early: the machine event that says how. */
class JobStop {
  constructor(
    readonly event: Extract<JobMachineEvent, { type: "FAIL" | "SKIP" }>,
    readonly detail?: string,
  ) {}
}
/** The job timeout passed while a phase ran. */
class JobTimedOut {}
/** The run was interrupted while a phase ran. */
class JobCancelled {}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
/** The stack of an unexpected error: for the job's stdout.log, never for a one-line reason. */
const stackOf = (error: unknown) => (error instanceof Error && error.stack ? error.stack : String(error));
/** A reason is one line: results.csv and the console show it; the stack goes with it as detail. */
const firstLine = (error: unknown) => errorText(error).split("\n")[0]!;
const fail = (reason: string, detail?: string) => new JobStop({ type: "FAIL", reason }, detail);

function evaluationFact(phase: "initial" | "final" | "test", attempt: number, result: DatasetScore, candidate: string): JobFact {
  return {
    type: "EvaluationCompleted",
    data: { attempt, phase, split: result.split, score: result.score, feedback: result.feedback, example_scores: [...result.exampleScores], candidate },
  };
}

function outcomeOf(job: JobSpec, progress: Progress, started: number): JobOutcome {
  const initialScore = progress.initialScore?.score ?? null;
  const finalScore = progress.final?.score ?? null;
  const bundle = progress.bundle;
  return {
    feedback: progress.feedback,
    score_val_initial: initialScore,
    score_val_final: finalScore,
    score_val: initialScore !== null && finalScore !== null ? Math.max(initialScore, finalScore) : (finalScore ?? initialScore),
    score_test: progress.test?.score ?? null,
    time_seconds: (performance.now() - started) / 1000,
    resolved: progress.resolved ?? resolvedMetadata(job, bundle),
    agent: bundle?.agent.name ?? null,
    parameters: bundle?.parameters.map((p) => ({ name: p.name, kind: p.kind, trainable: p.trainable })) ?? [],
    initial_values: progress.initial,
    final_values: progress.final === null ? null : progress.latest,
    best_values: progress.best,
    ...(progress.noSearch ? { no_search: true } : {}),
  };
}

/** How training ended, as the machine event to record: budgets and LLM trouble before the trainer's own word. */
function trainingEnd(calls: JobCalls, training: { ok: true } | { ok: false; error: unknown }): JobMachineEvent {
  if (calls.budgetExhausted !== null) return { type: "BUDGET_EXHAUSTED", reason: `budget_exhausted: ${calls.budgetExhausted}` };
  const c = calls.counts;
  if (c.started > 0 && c.completed === 0 && c.failed > 0) {
    return { type: "TRAINING_FAILED", reason: `llm_unavailable: ${c.failed} of ${c.started} LLM calls failed; last: ${calls.lastFailure ?? "unknown error"}` };
  }
  if (c.completed > 0 && c.usable === 0 && c.unusable > 0) {
    return { type: "TRAINING_FAILED", reason: `no_usable_replies: none of ${c.unusable} optimizer replies could be applied; last: ${calls.lastUnusable ?? ""}` };
  }
  if (!training.ok) return { type: "TRAINING_FAILED", reason: `training_error: ${firstLine(training.error)}` };
  return { type: "TRAINED" };
}

/** Why the attempt's signal is aborted when the job timeout passes. */
class DeadlinePassed extends Error {
  constructor() {
    super("job_timeout");
  }
}
/** Why the attempt's signal is aborted when the run is interrupted. */
class RunCancelled extends Error {
  constructor() {
    super("cancelled");
  }
}

/** The stop a phase ended by the attempt's signal stands for, if any: the deadline or the run's end. */
function stopBySignal(signal: AbortSignal): JobTimedOut | JobCancelled | null {
  if (!signal.aborted) return null;
  return signal.reason instanceof DeadlinePassed ? new JobTimedOut() : signal.reason instanceof RunCancelled ? new JobCancelled() : null;
}

/**
 * Promise-returning work of a phase, ended by the attempt's signal; anything it throws stops the
 * job as an internal error (or as timed out, or cancelled, when the signal ended it).
 */
async function phase<A>(abort: AttemptAbort, work: () => Promise<A>, onError: (error: unknown) => unknown = (error) => fail(`internal_error: ${firstLine(error)}`, stackOf(error))): Promise<A> {
  try {
    return await abort.until(work());
  } catch (error) {
    throw stopBySignal(abort.signal) ?? onError(error);
  }
}

/**
 * Trainer implementations are stateless: each is imported once per process, keyed by the catalog's
 * entry (so another TrainerSource, a test's, never gets a trainer cached from the first).
 */
const loadedTrainers = new WeakMap<object, Trainer>();

/** The phases of one attempt, each recorded before the next starts; ends by recording the outcome. */
async function phases(job: JobSpec, services: JobServices, recorder: JobRecorder, progress: Progress, started: number, abort: AttemptAbort, calls: JobCalls): Promise<void> {
  const signal = abort.signal;
  const attempt = recorder.attempt();
  const trainerInfo = services.trainers.find(job.trainer_id);
  if (trainerInfo === undefined) throw fail(`unknown trainer '${job.trainer_id}'; run 'trace-bench list-trainers --all'`);
  if (!trainerInfo.available || trainerInfo.load === undefined) throw fail(`trainer '${job.trainer_id}' is not available: ${trainerInfo.reason ?? "unknown reason"}`);
  const trainer: Trainer = loadedTrainers.get(trainerInfo) ?? (await phase(abort, () => trainerInfo.load!()));
  loadedTrainers.set(trainerInfo, trainer);
  const bundle = await phase(
    abort,
    () => Promise.resolve().then(() => services.tasks.load(job.task_id, toPlain(job.resolved_kwargs.eval_kwargs))),
    (error) =>
      (error as { _tag?: string })._tag === "TaskUnavailableError" ? new JobStop({ type: "SKIP", reason: errorText(error) }) : fail(`task_load_error: ${errorText(error)}`),
  );
  progress.bundle = bundle;
  if (trainableParameters(bundle.parameters).length === 0) throw fail("no_trainable_parameters");
  const split = evaluationSplit(bundle);
  // The task's own output (a candidate's prints) goes to the job's log.
  const context = { signal, log: (text: string) => recorder.executeNow({ type: "RecordFacts", facts: [{ type: "TaskOutput", data: { attempt, text } }] }) };
  const initial = initialValues(bundle.parameters);
  progress.initial = initial;
  progress.latest = initial;
  const ledger = new CandidateLedger(bundle.parameters, { train: bundle.train_dataset, validate: bundle.validate_dataset });
  const initialScore = await phase(abort, () => scoreDataset(bundle, initial, split, context));
  progress.initialScore = initialScore;
  const initialCandidate = ledger.candidateOf(initial);
  recorder.executeNow({ type: "Advance", event: { type: "BUILT" }, facts: [evaluationFact("initial", attempt, initialScore, initialCandidate.id)] }, initialCandidate.contents);

  const resolved = resolvedMetadata(job, bundle);
  progress.resolved = resolved;
  const llm = services.llm.forJob(job, bundle);
  calls.setTraining(true);
  let training: { ok: true; values: ParameterValues } | { ok: false; error: unknown };
  try {
    const result = await abort.until(
      trainer.train(
        createTrainerContext({
          bundle,
          initialValues: initial,
          trainerKwargs: job.resolved_kwargs.trainer_kwargs,
          seed: job.seed,
          optimizer: { name: resolved.optimizer ?? defaultOptimizerFor(bundle), kwargs: resolved.optimizer_kwargs },
          recorder: { attempt, record: (facts, contents) => recorder.executeNow({ type: "RecordFacts", facts }, contents) },
          candidates: ledger,
          llm,
          calls,
          signal: abort.trainingSignal,
          onValues: (values) => {
            progress.latest = values;
          },
        }),
      ),
    );
    training = { ok: true, values: result.values };
  } catch (error) {
    training = { ok: false, error };
  }
  calls.setTraining(false);
  const stopped = stopBySignal(signal);
  if (stopped !== null) throw stopped;
  if (!training.ok) {
    // The log refused the trainer's facts: nothing more can be recorded for this job.
    if (isRecordError(training.error)) throw training.error;
  } else {
    progress.latest = training.values;
  }
  // A budget that stopped training aborted it: the calls it cut off are recorded with the transition.
  const cutOff = calls.budgetExhausted !== null ? calls.abortInFlight("budget") : [];
  const ended = trainingEnd(calls, training);
  // The stack of a trainer's own error goes to stdout.log; a budget's or the LLM's reason says it all.
  const trainerError = !training.ok && ended.type === "TRAINING_FAILED" && ended.reason.startsWith("training_error") ? training.error : undefined;
  const detail = trainerError !== undefined ? { detail: stackOf(trainerError) } : {};
  recorder.executeNow({ type: "Advance", event: ended, facts: cutOff, ...detail });

  progress.noSearch = ledger.noSearch();
  const latest = progress.latest ?? initial;
  const final = await phase(abort, () => scoreDataset(bundle, latest, split, context));
  progress.final = final;
  progress.feedback = final.feedback;
  progress.best = final.score !== null && (initialScore.score === null || final.score >= initialScore.score) ? latest : initial;
  const best = progress.best;
  const testSet = bundle.test_dataset;
  if (testSet && testSet.inputs.length > 0) progress.test = await phase(abort, () => scoreDataset(bundle, best, { name: "test_dataset", dataset: testSet }, context));
  const finalCandidate = ledger.candidateOf(latest);
  const testCandidate = progress.test ? ledger.candidateOf(best) : null;
  const facts = [evaluationFact("final", attempt, final, finalCandidate.id), ...(progress.test && testCandidate ? [evaluationFact("test", attempt, progress.test, testCandidate.id)] : [])];
  const outcome = outcomeOf(job, progress, started);
  const invalid = noValidCandidateReason(bundle.failureScore, outcome.score_val, final.feedback, ended.type === "BUDGET_EXHAUSTED" ? ended.reason : null);
  const event: JobMachineEvent = invalid === null ? { type: "EVALUATED" } : { type: "NO_VALID_CANDIDATE", reason: invalid };
  recorder.executeNow({ type: "Advance", event, facts, outcome }, new Map([...finalCandidate.contents, ...(testCandidate?.contents ?? [])]));
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
    const progress: Progress = { bundle: null, initial: null, initialScore: null, latest: null, final: null, test: null, best: null, feedback: "", resolved: null, noSearch: false };
    const started = performance.now();
    const deadline = options.timeoutSeconds > 0 ? new Date(now + options.timeoutSeconds * 1000).toISOString() : null;
    recorder.executeNow({ type: "StartAttempt", attempt: job.attempt, invocation: options.invocation, deadline });

    // A spent budget stops training alone (the job then keeps its best state).
    const calls = jobCalls(job, services, recorder, (reason) => abort.abortTraining(new BudgetExhausted(reason)), options.onWarning);
    // The attempt ends while calls wait for replies: they are recorded aborted with its end.
    const end = (event: JobMachineEvent, detail?: string) =>
      recorder.executeNow({
        type: "Advance",
        event,
        facts: calls.abortInFlight(event.type === "TIME_OUT" ? "job_timeout" : "cancelled"),
        outcome: outcomeOf(job.spec, progress, started),
        ...(detail !== undefined ? { detail } : {}),
      });

    // The deadline aborts the attempt's signal, which ends the phase under way: a timer, not a
    // fiber racing the job (that cost a tenth of a trivial job's time).
    const deadlineTimer = options.timeoutSeconds > 0 ? setTimeout(() => abort.abort(new DeadlinePassed()), options.timeoutSeconds * 1000) : null;
    try {
      await phases(job.spec, services, recorder, progress, started, abort, calls);
    } catch (error) {
      if (isRecordError(error)) throw error;
      // Cancelled: recorded as such whatever the phase ended with (its error came from the abort).
      if (error instanceof JobCancelled || abort.signal.reason instanceof RunCancelled) {
        if (!recorder.finished()) end({ type: "CANCEL", reason: "cancelled: the run was interrupted before this job finished (it is re-run on resume)" });
      } else if (error instanceof JobStop) end(error.event, error.detail);
      else if (error instanceof JobTimedOut) end({ type: "TIME_OUT", reason: `job_timeout: exceeded ${options.timeoutSeconds}s (work interrupted, child processes killed)` });
      // Anything else is a bug: recorded as the job's internal error, with its stack.
      else end({ type: "FAIL", reason: `internal_error: ${firstLine(error)}` }, stackOf(error));
    } finally {
      if (deadlineTimer !== null) clearTimeout(deadlineTimer);
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
