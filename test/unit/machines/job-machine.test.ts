import { describe, expect, it } from "vitest";
import { IllegalJobTransition, initialJobSnapshot, isTerminal, jobStateOf, recordedEvent, stepJob, stepJobRecorded, type JobSnapshot } from "../../../machines/job-transitions.js";
import { jobMachine, type JobMachineEvent } from "../../../machines/job.machine.js";
import { trainingReport } from "../../support/training-report.js";

const run = (...events: JobMachineEvent[]): JobSnapshot => events.reduce(stepJob, initialJobSnapshot());
const reason = "why";

describe("job machine: legal transitions", () => {
  it("starts queued and walks the happy path to done", () => {
    const states = [jobStateOf(initialJobSnapshot())];
    let s = initialJobSnapshot();
    for (const e of [{ type: "START" }, { type: "BUILT" }, { type: "TRAINED" }, { type: "EVALUATED" }] as const) {
      s = stepJob(s, e);
      states.push(jobStateOf(s));
    }
    expect(states).toEqual(["queued", "building", "training", "evaluating", "done"]);
    expect(isTerminal(s)).toBe(true);
    expect(s.context).toEqual({ reason: null, trainingError: null, budgetExhausted: null });
  });

  it("a training failure still evaluates, then fails with the training error", () => {
    const evaluating = run({ type: "START" }, { type: "BUILT" }, { type: "TRAINING_FAILED", reason: "boom" });
    expect(jobStateOf(evaluating)).toBe("evaluating");
    expect(isTerminal(evaluating)).toBe(false);
    const end = stepJob(evaluating, { type: "EVALUATED" });
    expect(jobStateOf(end)).toBe("failed");
    expect(end.context.reason).toBe("boom");
  });

  it("a spent budget stops training; the final evaluation runs, then the job ends budget_exhausted", () => {
    const evaluating = run({ type: "START" }, { type: "BUILT" }, { type: "BUDGET_EXHAUSTED", reason: "job token budget spent" });
    expect(jobStateOf(evaluating)).toBe("evaluating");
    const end = stepJob(evaluating, { type: "EVALUATED" });
    expect(jobStateOf(end)).toBe("budget_exhausted");
    expect(isTerminal(end)).toBe(true);
    expect(end.context.reason).toBe("job token budget spent");
    expect(() => run({ type: "START" }, { type: "BUDGET_EXHAUSTED", reason })).toThrow(IllegalJobTransition);
  });

  it("an evaluation with no valid candidate ends no_valid_candidate with its reason, after a budget stop too; a training error still wins", () => {
    const evaluated = (...before: JobMachineEvent[]) => stepJob(run({ type: "START" }, { type: "BUILT" }, ...before), { type: "NO_VALID_CANDIDATE", reason: "nothing valid" });
    const plain = evaluated({ type: "TRAINED" });
    expect(jobStateOf(plain)).toBe("no_valid_candidate");
    expect(isTerminal(plain)).toBe(true);
    expect(plain.context.reason).toBe("nothing valid");
    expect(jobStateOf(evaluated({ type: "BUDGET_EXHAUSTED", reason }))).toBe("no_valid_candidate");
    const failed = evaluated({ type: "TRAINING_FAILED", reason: "boom" });
    expect(jobStateOf(failed)).toBe("failed");
    expect(failed.context.reason).toBe("boom");
    expect(() => run({ type: "START" }, { type: "BUILT" }, { type: "NO_VALID_CANDIDATE", reason })).toThrow(IllegalJobTransition);
  });

  it("building can end skipped", () => {
    const s = run({ type: "START" }, { type: "SKIP", reason });
    expect(jobStateOf(s)).toBe("skipped");
    expect(s.context.reason).toBe(reason);
  });

  it.each([
    ["building", [{ type: "START" }]],
    ["training", [{ type: "START" }, { type: "BUILT" }]],
    ["evaluating", [{ type: "START" }, { type: "BUILT" }, { type: "TRAINED" }]],
  ] as const)("%s can fail, time out or be cancelled", (_state, path) => {
    for (const [event, target] of [["FAIL", "failed"], ["TIME_OUT", "timeout"], ["CANCEL", "cancelled"]] as const) {
      const s = stepJob(run(...path), { type: event, reason });
      expect(jobStateOf(s)).toBe(target);
      expect(s.context.reason).toBe(reason);
      expect(s.hasTag("terminal")).toBe(true);
    }
  });

  it("a queued job can be cancelled", () => {
    expect(jobStateOf(run({ type: "CANCEL", reason }))).toBe("cancelled");
  });

  it("tags active states", () => {
    expect(run({ type: "START" }).hasTag("active")).toBe(true);
    expect(initialJobSnapshot().hasTag("active")).toBe(false);
  });
});

describe("job machine: illegal events are refused", () => {
  it.each([
    ["queued", [], { type: "BUILT" }],
    ["queued", [], { type: "EVALUATED" }],
    ["queued", [], { type: "TIME_OUT", reason }],
    ["building", [{ type: "START" }], { type: "TRAINED" }],
    ["building", [{ type: "START" }], { type: "START" }],
    ["training", [{ type: "START" }, { type: "BUILT" }], { type: "SKIP", reason }],
    ["training", [{ type: "START" }, { type: "BUILT" }], { type: "EVALUATED" }],
    ["evaluating", [{ type: "START" }, { type: "BUILT" }, { type: "TRAINED" }], { type: "BUILT" }],
  ] as const)("%s refuses %o", (_state, path, event) => {
    const before = run(...path);
    expect(() => stepJob(before, event)).toThrow(IllegalJobTransition);
  });

  it("terminal states accept nothing", () => {
    const terminals = [
      run({ type: "START" }, { type: "BUILT" }, { type: "TRAINED" }, { type: "EVALUATED" }),
      run({ type: "START" }, { type: "FAIL", reason }),
      run({ type: "START" }, { type: "SKIP", reason }),
      run({ type: "START" }, { type: "TIME_OUT", reason }),
      run({ type: "CANCEL", reason }),
    ];
    const all: JobMachineEvent[] = [
      { type: "START" },
      { type: "BUILT" },
      { type: "TRAINED" },
      { type: "EVALUATED" },
      { type: "TRAINING_FAILED", reason },
      { type: "SKIP", reason },
      { type: "FAIL", reason },
      { type: "TIME_OUT", reason },
      { type: "CANCEL", reason },
    ];
    for (const s of terminals) for (const e of all) expect(() => stepJob(s, e)).toThrow(/refuses/);
  });
});

describe("job machine definition", () => {
  it("exports as JSON with every state", () => {
    const json = JSON.parse(JSON.stringify(jobMachine.toJSON())) as { id: string; states: Record<string, { type: string }> };
    expect(json.id).toBe("job");
    expect(Object.keys(json.states)).toEqual(["queued", "building", "training", "evaluating", "done", "failed", "timeout", "skipped", "cancelled", "budget_exhausted", "no_valid_candidate"]);
    for (const s of ["done", "failed", "timeout", "skipped", "cancelled", "budget_exhausted", "no_valid_candidate"]) expect(json.states[s]!.type).toBe("final");
  });

  it("stepping is pure: the same snapshot and event always give the same state", () => {
    const s = run({ type: "START" });
    expect(jobStateOf(stepJob(s, { type: "BUILT" }))).toBe("training");
    expect(jobStateOf(stepJob(s, { type: "FAIL", reason }))).toBe("failed");
    expect(jobStateOf(s)).toBe("building");
  });
});

describe("job machine: training's verdict", () => {
  const training = () => run({ type: "START" }, { type: "BUILT" });
  const report = trainingReport;
  const boom = { message: "boom", stack: "Error: boom\n    at train" };

  it.each([
    ["a clean end", report(), { type: "TRAINED" }],
    ["a spent budget, whatever else", report({ budgetExhausted: "tokens 10/10", trainerError: boom, calls: { started: 1, completed: 0, failed: 1, usable: 0, unusable: 0 } }), { type: "BUDGET_EXHAUSTED", reason: "budget_exhausted: tokens 10/10" }],
    ["every call failed, before the trainer's error", report({ trainerError: boom, calls: { started: 2, completed: 0, failed: 2, usable: 0, unusable: 0 }, lastCallFailure: "HTTP 503" }), { type: "TRAINING_FAILED", reason: "llm_unavailable: 2 of 2 LLM calls failed; last: HTTP 503" }],
    ["no reply usable", report({ calls: { started: 3, completed: 3, failed: 0, usable: 0, unusable: 3 }, lastUnusableReply: "no JSON" }), { type: "TRAINING_FAILED", reason: "no_usable_replies: none of 3 optimizer replies could be applied; last: no JSON" }],
    ["some calls failed, some replies used: the trainer's own word", report({ calls: { started: 3, completed: 2, failed: 1, usable: 1, unusable: 1 } }), { type: "TRAINED" }],
    ["the trainer threw", report({ trainerError: boom }), { type: "TRAINING_FAILED", reason: "training_error: boom", detail: boom.stack }],
  ] as const)("%s: the guards pick the verdict, and the report leads where the verdict does", (_case, r, verdict) => {
    const { snapshot, recorded } = stepJobRecorded(training(), { type: "TRAINING_ENDED", report: r });
    expect(recorded).toEqual(verdict);
    // What the log records (the verdict) replays to the same state and context.
    const replayed = stepJob(training(), verdict as JobMachineEvent);
    expect(jobStateOf(snapshot)).toBe("evaluating");
    expect([jobStateOf(replayed), replayed.context]).toEqual([jobStateOf(snapshot), snapshot.context]);
  });

  it("a report is refused as a recorded event, and outside training", () => {
    expect(() => recordedEvent({ type: "TRAINING_ENDED", report: report() })).toThrow(/a phase's report, never a recorded transition/);
    expect(() => stepJob(run({ type: "START" }), { type: "TRAINING_ENDED", report: report() })).toThrow(IllegalJobTransition);
  });
});
