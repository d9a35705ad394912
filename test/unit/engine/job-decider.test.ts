/**
 * The job decider in the given / when / then style: given the events a job's stream already
 * holds, when a command arrives, then these events (or this rejection) follow, and the stream
 * they make passes `replay --verify`.
 */
import { describe, it } from "vitest";
import type { TrainingReport } from "../../../machines/job.machine.js";
import { jobDecider, JobCommandRejected, type JobCommand, type JobOutcome } from "../../../src/engine/job-decider.js";
import { verifyLog } from "../../../src/engine/verify-log.js";
import type { NewEvent } from "../../../src/events/event-schema.js";
import { deciderSpec } from "../../support/decider-spec.js";
import { storedStream } from "../../support/stored-stream.js";
import { trainingReport } from "../../support/training-report.js";

const JOB = "j1";

const outcome: JobOutcome = {
  feedback: "final feedback",
  score_val_initial: -3,
  score_val_final: -1,
  score_val: -1,
  score_test: null,
  time_seconds: 0.1,
  resolved: { optimizer: "OPROv2", guide: "g", logger: "l", trainer_kwargs: {}, optimizer_kwargs: {}, guide_kwargs: {}, logger_kwargs: {} },
  agent: "Agent",
  parameters: [{ name: "x", kind: "number", trainable: true }],
  initial_values: { x: 0 },
  final_values: { x: 2 },
  best_values: { x: 2 },
};

/** given(history).when(command) → then(events) | thenThrows(JobCommandRejected, pattern); every `then` stream also passes `replay --verify`. */
const { given: givenSpec } = deciderSpec(jobDecider, JOB, { verify: (stream) => verifyLog(storedStream(stream)) });
const given = (history: readonly NewEvent[]) => ({
  when: (command: JobCommand) => {
    const when = givenSpec(history).when(command);
    return { then: when.then, thenRejects: (reason: RegExp) => when.thenThrows(JobCommandRejected, reason) };
  },
});

const transition = (attempt: number, from: string, to: string, event: string, reason: string | null = null): NewEvent => ({
  type: "JobTransitioned",
  job_id: JOB,
  data: { attempt, from, to, event, reason },
});
const started = (attempt = 1): NewEvent[] => [
  { type: "JobQueued", job_id: JOB, data: { attempt, invocation: attempt } },
  { type: "JobTransitioned", job_id: JOB, data: { attempt, from: "queued", to: "building", event: "START", reason: null, deadline: null } },
];
const built = (attempt = 1): NewEvent[] => [...started(attempt), transition(attempt, "building", "training", "BUILT")];
const trained = (attempt = 1): NewEvent[] => [...built(attempt), transition(attempt, "training", "evaluating", "TRAINED")];
const finishedOk = (attempt = 1): NewEvent[] => [
  ...trained(attempt),
  transition(attempt, "evaluating", "done", "EVALUATED"),
  { type: "JobFinished", job_id: JOB, data: { attempt, status: "ok", ...outcome } },
];
const evaluation = (attempt: number): NewEvent => ({
  type: "EvaluationCompleted",
  data: { attempt, phase: "final", split: "train_dataset", score: -1, feedback: "fb", example_scores: [-1] },
});

describe("job decider: attempts", () => {
  it("a new job starts attempt 1: queued, then the START transition with its deadline", () => {
    given([]).when({ type: "StartAttempt", attempt: 1, invocation: 1, deadline: "2026-01-01T00:10:00.000Z" }).then([
      { type: "JobQueued", job_id: JOB, data: { attempt: 1, invocation: 1 } },
      { type: "JobTransitioned", job_id: JOB, data: { attempt: 1, from: "queued", to: "building", event: "START", reason: null, deadline: "2026-01-01T00:10:00.000Z" } },
    ]);
  });

  it("attempts follow one another: a finished job may be re-run as attempt 2, never as attempt 1 or 3", () => {
    given(finishedOk()).when({ type: "StartAttempt", attempt: 2, invocation: 2, deadline: null }).then([{ type: "JobQueued", data: { attempt: 2, invocation: 2 } }, { type: "JobTransitioned" }]);
    given(finishedOk()).when({ type: "StartAttempt", attempt: 1, invocation: 2, deadline: null }).thenRejects(/attempt 1 cannot follow attempt 1/);
    given(finishedOk()).when({ type: "StartAttempt", attempt: 3, invocation: 2, deadline: null }).thenRejects(/attempt 3 cannot follow attempt 1/);
  });

  it("an attempt abandoned by a crash (no terminal event) is superseded by the next one", () => {
    given(built()).when({ type: "StartAttempt", attempt: 2, invocation: 2, deadline: null }).then([{ type: "JobQueued", data: { attempt: 2, invocation: 2 } }, { type: "JobTransitioned" }]);
  });
});

describe("job decider: the machine decides", () => {
  it("facts are recorded only while an attempt runs, stamped with the job and checked against the attempt", () => {
    given(built()).when({ type: "RecordFacts", facts: [evaluation(1) as never] }).then([{ type: "EvaluationCompleted", job_id: JOB }]);
    given([]).when({ type: "RecordFacts", facts: [evaluation(1) as never] }).thenRejects(/no attempt in progress/);
    given(built()).when({ type: "RecordFacts", facts: [evaluation(2) as never] }).thenRejects(/a fact of attempt 2 in attempt 1/);
  });

  it("a transition comes from the machine: the recorded from/to are its states", () => {
    given(built()).when({ type: "Advance", event: { type: "TRAINED" } }).then([transition(1, "training", "evaluating", "TRAINED")]);
  });

  it("an event the machine refuses in this state is rejected", () => {
    given(started()).when({ type: "Advance", event: { type: "EVALUATED" } }).thenRejects(/the machine refuses EVALUATED in state 'building'/);
    given(built()).when({ type: "Advance", event: { type: "SKIP", reason: "no lean" } }).thenRejects(/refuses SKIP in state 'training'/);
  });

  it("the terminal step records JobFinished with the status of the machine's final state", () => {
    given(trained()).when({ type: "Advance", event: { type: "EVALUATED" }, facts: [evaluation(1) as never], outcome }).then([
      { type: "EvaluationCompleted" },
      transition(1, "evaluating", "done", "EVALUATED"),
      { type: "JobFinished", job_id: JOB, data: { attempt: 1, status: "ok", ...outcome } },
    ]);
  });

  it("training that threw ends `failed` after the final evaluation, with the training error as feedback", () => {
    const history = [...built(), transition(1, "training", "evaluating", "TRAINING_FAILED", "training_error: boom")];
    given(history).when({ type: "Advance", event: { type: "EVALUATED" }, outcome }).then([
      transition(1, "evaluating", "failed", "EVALUATED"),
      { type: "JobFinished", job_id: JOB, data: { attempt: 1, status: "failed", ...outcome, feedback: "training_error: boom" } },
    ]);
  });

  it("skip, timeout and cancel end the job with their status and reason, whatever the runner's feedback says", () => {
    given(started()).when({ type: "Advance", event: { type: "SKIP", reason: "lean is not installed" }, outcome }).then([
      transition(1, "building", "skipped", "SKIP", "lean is not installed"),
      { type: "JobFinished", data: { attempt: 1, status: "skipped", ...outcome, feedback: "lean is not installed" } },
    ]);
    given(built()).when({ type: "Advance", event: { type: "TIME_OUT", reason: "job_timeout" }, outcome }).then([
      transition(1, "training", "timeout", "TIME_OUT", "job_timeout"),
      { type: "JobFinished", data: { attempt: 1, status: "timeout", ...outcome, feedback: "job_timeout" } },
    ]);
    given(trained()).when({ type: "Advance", event: { type: "CANCEL", reason: "cancelled" }, outcome }).then([
      transition(1, "evaluating", "cancelled", "CANCEL", "cancelled"),
      { type: "JobFinished", data: { attempt: 1, status: "cancelled", ...outcome, feedback: "cancelled" } },
    ]);
  });

  it("a step that ends the job needs its outcome", () => {
    given(trained()).when({ type: "Advance", event: { type: "EVALUATED" } }).thenRejects(/EVALUATED ends the job, but no outcome was given/);
  });

  it("a finished attempt takes nothing more: no second terminal event, no late facts", () => {
    given(finishedOk()).when({ type: "Advance", event: { type: "FAIL", reason: "late" }, outcome }).thenRejects(/attempt 1 already finished/);
    given(finishedOk()).when({ type: "Advance", event: { type: "CANCEL", reason: "late" }, outcome }).thenRejects(/attempt 1 already finished/);
    given(finishedOk()).when({ type: "RecordFacts", facts: [evaluation(1) as never] }).thenRejects(/attempt 1 already finished/);
  });
});

describe("job decider: training's verdict comes from the machine's guards over the report", () => {
  const report = trainingReport;
  const ended = (r: TrainingReport): JobCommand => ({ type: "Advance", event: { type: "TRAINING_ENDED", report: r } });

  it("records the verdict, never the report: a clean end is TRAINED", () => {
    given(built()).when(ended(report())).then([transition(1, "training", "evaluating", "TRAINED")]);
  });

  it("a spent budget wins over everything else the report says", () => {
    const r = report({ budgetExhausted: "job tokens 100/100", calls: { started: 3, completed: 0, failed: 3, usable: 0, unusable: 0 }, trainerError: { message: "boom", stack: "Error: boom\n at x" } });
    given(built()).when(ended(r)).then([transition(1, "training", "evaluating", "BUDGET_EXHAUSTED", "budget_exhausted: job tokens 100/100")]);
  });

  it("every LLM call failing is llm_unavailable, before the trainer's own error", () => {
    const r = report({ calls: { started: 2, completed: 0, failed: 2, usable: 0, unusable: 0 }, lastCallFailure: "HTTP 500", trainerError: { message: "boom", stack: "s" } });
    given(built()).when(ended(r)).then([transition(1, "training", "evaluating", "TRAINING_FAILED", "llm_unavailable: 2 of 2 LLM calls failed; last: HTTP 500")]);
  });

  it("replies that could never be applied are no_usable_replies", () => {
    const r = report({ calls: { started: 2, completed: 2, failed: 0, usable: 0, unusable: 2 }, lastUnusableReply: "no JSON" });
    given(built()).when(ended(r)).then([transition(1, "training", "evaluating", "TRAINING_FAILED", "no_usable_replies: none of 2 optimizer replies could be applied; last: no JSON")]);
  });

  it("the trainer's error is the reason, its stack the transition's detail; the job then fails after evaluating", () => {
    const r = report({ calls: { started: 1, completed: 1, failed: 0, usable: 1, unusable: 0 }, trainerError: { message: "boom", stack: "Error: boom\n    at train" } });
    const [event] = given(built()).when(ended(r)).then([{ type: "JobTransitioned", data: { attempt: 1, from: "training", to: "evaluating", event: "TRAINING_FAILED", reason: "training_error: boom", detail: "Error: boom\n    at train" } }]);
    given([...built(), event!]).when({ type: "Advance", event: { type: "EVALUATED" }, outcome }).then([
      transition(1, "evaluating", "failed", "EVALUATED"),
      { type: "JobFinished", data: { attempt: 1, status: "failed", ...outcome, feedback: "training_error: boom" } },
    ]);
  });

  it("a report is refused outside training", () => {
    given(trained()).when(ended(report())).thenRejects(/the machine refuses TRAINING_ENDED in state 'evaluating'/);
  });
});
