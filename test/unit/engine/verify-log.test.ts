/**
 * `replay --verify` against the job decider: a stream the decider made verifies (for any sequence
 * of commands, generated here), and a doctored one is reported at the event that breaks it. The
 * streams come from the decider spec (test/support/decider-spec.ts), as in the decider's tests.
 */
import { describe, expect, it } from "vitest";
import type { JobMachineEvent, TrainingReport } from "../../../machines/job.machine.js";
import { jobStateOf } from "../../../machines/job-transitions.js";
import { foldJobStream, jobDecider, JobCommandRejected, type JobCommand, type JobDecisionState, type JobOutcome } from "../../../src/engine/job-decider.js";
import { verifyLog } from "../../../src/engine/verify-log.js";
import type { NewEvent } from "../../../src/events/event-schema.js";
import { deciderSpec } from "../../support/decider-spec.js";
import { storedStream } from "../../support/stored-stream.js";
import { mulberry32 } from "../../support/mulberry32.js";

const JOB = "j1";
const verify = (stream: readonly NewEvent[]) => verifyLog(storedStream(stream));
const { given } = deciderSpec(jobDecider, JOB, { verify });

const outcome: JobOutcome = {
  feedback: "fb",
  score_val_initial: 0,
  score_val_final: 1,
  score_val: 1,
  score_test: null,
  time_seconds: 0.01,
  resolved: { optimizer: null, guide: null, logger: null, trainer_kwargs: {}, optimizer_kwargs: {}, guide_kwargs: {}, logger_kwargs: {} },
  agent: "A",
  parameters: [{ name: "x", kind: "number", trainable: true }],
  initial_values: { x: 0 },
  final_values: { x: 1 },
  best_values: { x: 1 },
};
const cleanReport: TrainingReport = { budgetExhausted: null, calls: { started: 0, completed: 0, failed: 0, usable: 0, unusable: 0 }, lastCallFailure: null, lastUnusableReply: null, trainerError: null };

/** A whole attempt through the spec: start, built, training's report, evaluated. */
function finishedJob(report: TrainingReport = cleanReport): NewEvent[] {
  const stream: NewEvent[] = [];
  const step = (command: JobCommand, expected: readonly Partial<NewEvent>[]) => stream.push(...given(stream).when(command).then(expected));
  step({ type: "StartAttempt", attempt: 1, invocation: 1, deadline: null }, [{ type: "JobQueued" }, { type: "JobTransitioned" }]);
  step({ type: "Advance", event: { type: "BUILT" } }, [{ type: "JobTransitioned" }]);
  step({ type: "Advance", event: { type: "TRAINING_ENDED", report } }, [{ type: "JobTransitioned" }]);
  step({ type: "Advance", event: { type: "EVALUATED" }, outcome }, [{ type: "JobTransitioned" }, { type: "JobFinished" }]);
  return stream;
}

describe("replay --verify: doctored streams", () => {
  it("a status the machine's final state does not give", () => {
    const stream = finishedJob({ ...cleanReport, budgetExhausted: "tokens" });
    expect(stream.at(-1)).toMatchObject({ type: "JobFinished", data: { status: "budget_exhausted" } });
    const doctored = stream.map((e) => (e.type === "JobFinished" ? { ...e, data: { ...e.data, status: "ok" as const } } : e));
    expect(verify(doctored)).toEqual([{ seq: 6, jobId: JOB, problem: expect.stringMatching(/^the machine records JobFinished .*"status":"budget_exhausted".*, the log has JobFinished .*"status":"ok"/) }]);
  });

  it("a report recorded in place of its verdict", () => {
    const doctored = finishedJob().map((e) => (e.type === "JobTransitioned" && e.data.event === "TRAINED" ? { ...e, data: { ...e.data, event: "TRAINING_ENDED" } } : e));
    expect(verify(doctored)).toEqual([{ seq: 4, jobId: JOB, problem: expect.stringMatching(/the machine records JobTransitioned .*"event":"TRAINED".*, the log has JobTransitioned .*"event":"TRAINING_ENDED"/) }]);
    // The recorder refuses to fold such a log too.
    expect(() => foldJobStream(doctored)).toThrow(/TRAINING_ENDED is a phase's report, never a recorded transition/);
  });

  it("a second terminal event in one attempt", () => {
    const stream = finishedJob();
    const again: NewEvent[] = [
      { type: "JobTransitioned", job_id: JOB, data: { attempt: 1, from: "evaluating", to: "failed", event: "FAIL", reason: "late" } },
      { type: "JobFinished", job_id: JOB, data: { attempt: 1, status: "failed", ...outcome, feedback: "late" } },
    ];
    expect(verify([...stream, ...again])).toEqual([{ seq: 7, jobId: JOB, problem: "job j1: Advance(FAIL) rejected: attempt 1 already finished" }]);
  });

  it("a training error's reason changed: the job's feedback is no longer the one the machine recorded", () => {
    const stream = finishedJob({ ...cleanReport, trainerError: { message: "boom", stack: "Error: boom\n    at train" } });
    expect(stream[3]).toMatchObject({ data: { event: "TRAINING_FAILED", reason: "training_error: boom", detail: "Error: boom\n    at train" } });
    expect(stream.at(-1)).toMatchObject({ data: { status: "failed", feedback: "training_error: boom" } });
    const doctored = stream.map((e) => (e.type === "JobTransitioned" && e.data.event === "TRAINING_FAILED" ? { ...e, data: { ...e.data, reason: "training_error: boom!" } } : e));
    expect(verify(doctored)).toEqual([{ seq: 6, jobId: JOB, problem: expect.stringMatching(/"feedback":"training_error: boom!".*, the log has JobFinished .*"feedback":"training_error: boom"/) }]);
  });
});


function randomCommand(next: () => number, state: JobDecisionState): JobCommand {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const n = () => Math.floor(next() * 3);
  const reason = pick(["why", "a reason", "x"]);
  const report = (): TrainingReport => ({
    budgetExhausted: next() < 0.2 ? "tokens 10/10" : null,
    calls: { started: n(), completed: n(), failed: n(), usable: n(), unusable: n() },
    lastCallFailure: next() < 0.5 ? "HTTP 500" : null,
    lastUnusableReply: next() < 0.5 ? "no JSON" : null,
    trainerError: next() < 0.3 ? { message: "boom", stack: "Error: boom\n    at train" } : null,
  });
  const events: JobMachineEvent[] = [
    { type: "BUILT" },
    { type: "TRAINED" },
    { type: "TRAINING_ENDED", report: report() },
    { type: "TRAINING_FAILED", reason },
    { type: "BUDGET_EXHAUSTED", reason },
    { type: "EVALUATED" },
    { type: "NO_VALID_CANDIDATE", reason },
    { type: "SKIP", reason },
    { type: "FAIL", reason },
    { type: "TIME_OUT", reason },
    { type: "CANCEL", reason },
  ];
  const legal = events.filter((e) => state.snapshot.can(e));
  const attempt = state.attempt === 0 || next() < 0.8 ? Math.max(state.attempt, 1) : state.attempt + 1;
  const roll = next();
  if (roll < 0.12) return { type: "StartAttempt", attempt: state.attempt + (next() < 0.9 ? 1 : 2), invocation: state.attempt + 1, deadline: next() < 0.5 ? null : "2026-01-01T00:10:00.000Z" };
  if (roll < 0.3) return { type: "RecordFacts", facts: [{ type: "TaskOutput", data: { attempt, text: "out" } }] };
  return {
    type: "Advance",
    // Mostly an event the machine takes now (so attempts get far), sometimes any (refusals).
    event: next() < 0.7 && legal.length > 0 ? pick(legal) : pick(events),
    ...(next() < 0.7 ? { outcome } : {}),
    ...(next() < 0.2 ? { facts: [{ type: "TaskOutput" as const, data: { attempt, text: "x" } }] } : {}),
    ...(next() < 0.2 ? { detail: "a stack" } : {}),
  };
}

/** Sized to about a second on an idle machine; the test's own time limit leaves room for a busy one. */
const SEQUENCES = 50;

describe("decide and evolve agree (generated command sequences)", () => {
  it("the state folded as commands are decided is the fold of the whole stream, and the stream verifies", () => {
    let accepted = 0;
    let finishedJobs = 0;
    const statuses = new Set<string>();
    const verdicts = new Set<string>();
    for (let seed = 1; seed <= SEQUENCES; seed++) {
      const next = mulberry32(seed);
      let state = jobDecider.initialState();
      const stream: NewEvent[] = [];
      for (let i = 0; i < 40; i++) {
        const command = randomCommand(next, state);
        let events: NewEvent[];
        try {
          events = jobDecider.decide(JOB, state, command);
        } catch (error) {
          expect(error, `seed ${seed}`).toBeInstanceOf(JobCommandRejected);
          continue;
        }
        accepted += 1;
        stream.push(...events);
        for (const event of events) state = jobDecider.evolve(state, event);
      }
      const refolded = foldJobStream(stream);
      expect({ ...refolded, snapshot: [jobStateOf(refolded.snapshot), refolded.snapshot.context] }, `seed ${seed}`).toEqual({ ...state, snapshot: [jobStateOf(state.snapshot), state.snapshot.context] });
      expect(verify(stream), `seed ${seed}`).toEqual([]);
      // One outcome per attempt at most, and no transition of an attempt after it.
      const finishes = stream.filter((e) => e.type === "JobFinished").map((e) => e.data.attempt);
      expect(new Set(finishes).size, `seed ${seed}`).toBe(finishes.length);
      finishedJobs += finishes.length;
      for (const e of stream) {
        if (e.type === "JobFinished") statuses.add(e.data.status);
        if (e.type === "JobTransitioned" && e.data.from === "training") verdicts.add(e.data.event);
      }
    }
    // The generator reaches past the trivial: many commands accepted, many attempts finished.
    expect(accepted).toBeGreaterThan(SEQUENCES * 5);
    expect(finishedJobs).toBeGreaterThan(SEQUENCES / 2);
    expect([...statuses].sort()).toEqual(["budget_exhausted", "cancelled", "failed", "no_valid_candidate", "ok", "skipped", "timeout"]);
    expect([...verdicts].sort()).toEqual(["BUDGET_EXHAUSTED", "CANCEL", "FAIL", "TIME_OUT", "TRAINED", "TRAINING_FAILED"]);
  });
});
