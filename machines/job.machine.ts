/**
 * The life of one job. Pure: the engine performs each phase and feeds its outcome here as an
 * event; this machine only decides the next state. No I/O, no clock, no timers (deadlines are
 * carried in events and enforced by the engine, so they survive a restart).
 *
 *   queued → building → training → evaluating → done
 *   training —BUDGET_EXHAUSTED→ evaluating → budget_exhausted (the best state so far is still scored)
 *   evaluating —NO_VALID_CANDIDATE→ no_valid_candidate (its result is the task's failure value)
 *   any active state → failed | timeout | cancelled;  building → skipped
 */
import { assign, setup } from "xstate";

export const TERMINAL_JOB_STATES = ["done", "failed", "timeout", "skipped", "cancelled", "budget_exhausted", "no_valid_candidate"] as const;
export type TerminalJobState = (typeof TERMINAL_JOB_STATES)[number];
export type ActiveJobState = "building" | "training" | "evaluating";
export type JobState = "queued" | ActiveJobState | TerminalJobState;

export type JobMachineEvent =
  /** The engine picked the job up: load the bundle, check it, score the initial parameters. */
  | { type: "START" }
  /** Bundle built and the initial evaluation recorded. */
  | { type: "BUILT" }
  /** The trainer returned. */
  | { type: "TRAINED" }
  /** The trainer threw: the final evaluation still runs, then the job fails. */
  | { type: "TRAINING_FAILED"; reason: string }
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
  },
  guards: {
    trainingFailed: ({ context }) => context.trainingError !== null,
    budgetExhausted: ({ context }) => context.budgetExhausted !== null,
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
