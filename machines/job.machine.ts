/**
 * The life of one job. Pure: the engine performs each phase and feeds its outcome here as an
 * event; this machine only decides the next state. No I/O, no clock, no timers (deadlines are
 * carried in events and enforced by the engine, so they survive a restart).
 *
 *   queued → building → training → evaluating → done
 *   training —TRAINING_ENDED→ its verdict (TRAINED, TRAINING_FAILED or BUDGET_EXHAUSTED), picked by
 *     guards over the training report the event carries; the verdict is what the log records
 *   training —BUDGET_EXHAUSTED→ evaluating → budget_exhausted (the best state so far is still scored)
 *   evaluating —NO_VALID_CANDIDATE→ no_valid_candidate (its result is the task's failure value)
 *   any active state → failed | timeout | cancelled;  building → skipped
 */
import { assign, raise, setup } from "xstate";

export const TERMINAL_JOB_STATES = ["done", "failed", "timeout", "skipped", "cancelled", "budget_exhausted", "no_valid_candidate"] as const;
export type TerminalJobState = (typeof TERMINAL_JOB_STATES)[number];
export type ActiveJobState = "building" | "training" | "evaluating";
export type JobState = "queued" | ActiveJobState | TerminalJobState;

/** What the training phase saw, for the machine's verdict on it (`TRAINING_ENDED`). */
export interface TrainingReport {
  /** Why a token or cost budget stopped training, else null. */
  readonly budgetExhausted: string | null;
  /** The job's LLM calls during training. */
  readonly calls: { readonly started: number; readonly completed: number; readonly failed: number; readonly usable: number; readonly unusable: number };
  readonly lastCallFailure: string | null;
  readonly lastUnusableReply: string | null;
  /** What the trainer threw (its first line, and its stack for the job's stdout.log), else null. */
  readonly trainerError: { readonly message: string; readonly stack: string } | null;
}

/** The events a transition records (`TRAINING_ENDED` is never recorded: its verdict is). */
export type RecordedJobEvent = Exclude<JobMachineEvent, { type: "TRAINING_ENDED" }>;

export type JobMachineEvent =
  /** The engine picked the job up: load the bundle, check it, score the initial parameters. */
  | { type: "START" }
  /** Bundle built and the initial evaluation recorded. */
  | { type: "BUILT" }
  /** The trainer returned. */
  | { type: "TRAINED" }
  /**
   * The trainer returned or threw: the machine's guards pick the verdict (one of the three events
   * below) from the report, and step with it.
   */
  | { type: "TRAINING_ENDED"; report: TrainingReport }
  /**
   * Training failed (the trainer threw, or the LLM never gave a usable reply): the final evaluation
   * still runs, then the job fails. `detail`: what the one-line reason leaves out (a stack), for
   * the job's stdout.log; not part of the machine's state.
   */
  | { type: "TRAINING_FAILED"; reason: string; detail?: string }
  /** The job's (or the run's) token or cost budget is spent: training stops, the final evaluation runs. */
  | { type: "BUDGET_EXHAUSTED"; reason: string }
  /** Final (and test) evaluation recorded. */
  | { type: "EVALUATED" }
  /**
   * Final evaluation recorded, and neither it nor the initial one scored anything but the task's
   * failure value (LLM4AD's −1,000,000): the job has no result to rank.
   */
  | { type: "NO_VALID_CANDIDATE"; reason: string }
  /** The task cannot run on this machine. */
  | { type: "SKIP"; reason: string }
  | { type: "FAIL"; reason: string }
  | { type: "TIME_OUT"; reason: string }
  /** The run was interrupted before the job finished; the job is re-run on resume. */
  | { type: "CANCEL"; reason: string };

export interface JobMachineContext {
  /** Why the job ended where it did (failure, skip, timeout or cancel reason), else null. */
  readonly reason: string | null;
  /** Set when training threw; the job fails after its final evaluation. */
  readonly trainingError: string | null;
  /** Set when a budget stopped training; the job ends budget_exhausted after its final evaluation. */
  readonly budgetExhausted: string | null;
}

/** The report a `TRAINING_ENDED` carries; one without (a log cannot record one) reads as a clean end. */
const NO_REPORT: TrainingReport = { budgetExhausted: null, calls: { started: 0, completed: 0, failed: 0, usable: 0, unusable: 0 }, lastCallFailure: null, lastUnusableReply: null, trainerError: null };
const reportOf = (event: JobMachineEvent): TrainingReport => (event.type === "TRAINING_ENDED" ? (event.report ?? NO_REPORT) : NO_REPORT);

const interruptions = {
  FAIL: { target: "failed", actions: "recordReason" },
  TIME_OUT: { target: "timeout", actions: "recordReason" },
  CANCEL: { target: "cancelled", actions: "recordReason" },
} as const;

export const jobMachine = setup({
  types: {
    context: {} as JobMachineContext,
    events: {} as JobMachineEvent,
  },
  actions: {
    recordReason: assign({
      reason: ({ event }) => ("reason" in event ? event.reason : null),
    }),
    recordTrainingError: assign({
      trainingError: ({ event }) => (event.type === "TRAINING_FAILED" ? event.reason : null),
    }),
    failWithTrainingError: assign({
      reason: ({ context }) => context.trainingError,
    }),
    recordBudgetExhausted: assign({
      budgetExhausted: ({ event }) => (event.type === "BUDGET_EXHAUSTED" ? event.reason : null),
    }),
    endWithBudgetExhausted: assign({
      reason: ({ context }) => context.budgetExhausted,
    }),
    // The training verdicts, in the order the guards below try them: budgets and LLM trouble before the trainer's own word.
    verdictBudgetExhausted: raise(({ event }) => ({ type: "BUDGET_EXHAUSTED" as const, reason: `budget_exhausted: ${reportOf(event).budgetExhausted}` })),
    verdictLlmUnavailable: raise(({ event }) => {
      const r = reportOf(event);
      return { type: "TRAINING_FAILED" as const, reason: `llm_unavailable: ${r.calls.failed} of ${r.calls.started} LLM calls failed; last: ${r.lastCallFailure ?? "unknown error"}` };
    }),
    verdictNoUsableReplies: raise(({ event }) => {
      const r = reportOf(event);
      return { type: "TRAINING_FAILED" as const, reason: `no_usable_replies: none of ${r.calls.unusable} optimizer replies could be applied; last: ${r.lastUnusableReply ?? ""}` };
    }),
    verdictTrainerThrew: raise(({ event }) => {
      const error = reportOf(event).trainerError!;
      return { type: "TRAINING_FAILED" as const, reason: `training_error: ${error.message}`, detail: error.stack };
    }),
    verdictTrained: raise({ type: "TRAINED" as const }),
  },
  guards: {
    trainingFailed: ({ context }) => context.trainingError !== null,
    budgetExhausted: ({ context }) => context.budgetExhausted !== null,
    reportsBudgetExhausted: ({ event }) => reportOf(event).budgetExhausted !== null,
    reportsLlmUnavailable: ({ event }) => {
      const c = reportOf(event).calls;
      return c.started > 0 && c.completed === 0 && c.failed > 0;
    },
    reportsNoUsableReplies: ({ event }) => {
      const c = reportOf(event).calls;
      return c.completed > 0 && c.usable === 0 && c.unusable > 0;
    },
    reportsTrainerError: ({ event }) => reportOf(event).trainerError !== null,
  },
}).createMachine({
  id: "job",
  initial: "queued",
  context: { reason: null, trainingError: null, budgetExhausted: null },
  states: {
    queued: {
      on: { START: "building", CANCEL: { target: "cancelled", actions: "recordReason" } },
    },
    building: {
      tags: ["active"],
      on: { BUILT: "training", SKIP: { target: "skipped", actions: "recordReason" }, ...interruptions },
    },
    training: {
      tags: ["active"],
      on: {
        // Targetless: each branch raises its verdict, which the transitions below take (in the same step).
        TRAINING_ENDED: [
          { guard: "reportsBudgetExhausted", actions: "verdictBudgetExhausted" },
          { guard: "reportsLlmUnavailable", actions: "verdictLlmUnavailable" },
          { guard: "reportsNoUsableReplies", actions: "verdictNoUsableReplies" },
          { guard: "reportsTrainerError", actions: "verdictTrainerThrew" },
          { actions: "verdictTrained" },
        ],
        TRAINED: "evaluating",
        TRAINING_FAILED: { target: "evaluating", actions: "recordTrainingError" },
        BUDGET_EXHAUSTED: { target: "evaluating", actions: "recordBudgetExhausted" },
        ...interruptions,
      },
    },
    evaluating: {
      tags: ["active"],
      on: {
        EVALUATED: [
          { guard: "trainingFailed", target: "failed", actions: "failWithTrainingError" },
          { guard: "budgetExhausted", target: "budget_exhausted", actions: "endWithBudgetExhausted" },
          { target: "done" },
        ],
        // A training error is the more useful reason; otherwise (budget or not) nothing valid was found.
        NO_VALID_CANDIDATE: [
          { guard: "trainingFailed", target: "failed", actions: "failWithTrainingError" },
          { target: "no_valid_candidate", actions: "recordReason" },
        ],
        ...interruptions,
      },
    },
    done: { type: "final", tags: ["terminal"] },
    failed: { type: "final", tags: ["terminal"] },
    timeout: { type: "final", tags: ["terminal"] },
    skipped: { type: "final", tags: ["terminal"] },
    cancelled: { type: "final", tags: ["terminal"] },
    budget_exhausted: { type: "final", tags: ["terminal"] },
    no_valid_candidate: { type: "final", tags: ["terminal"] },
  },
});
