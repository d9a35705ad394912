import { describe, expect, it } from "vitest";
import { decodeEvent, EventDecodeError } from "../../../src/events/event-schema.js";

const row = (type: string, data: unknown) => ({ seq: 7, v: 2, stream: "job-j1", position: 3, type, run_id: "r1", job_id: "j1", ts: "2026-01-01T00:00:00.000Z", data });

describe("decodeEvent: payloads checked on read", () => {
  it("a valid payload comes back as stored, excess fields kept", () => {
    const stored = row("JobQueued", { attempt: 1, invocation: 1, written_by_a_newer_version: true });
    expect(decodeEvent(stored)).toBe(stored);
  });

  it("a bad payload is an EventDecodeError naming the event, its type and what is wrong", () => {
    expect(() => decodeEvent(row("JobQueued", { attempt: "1", invocation: 1 }))).toThrow(EventDecodeError);
    expect(() => decodeEvent(row("JobQueued", { attempt: "1", invocation: 1 }))).toThrow(/^event 7 \(JobQueued\): .*/);
    expect(() => decodeEvent(row("JobFinished", null))).toThrow(/^event 7 \(JobFinished\): Expected/);
    expect(() => decodeEvent(row("EvaluationCompleted", { attempt: 1, phase: "later", split: "val", score: null, feedback: "", example_scores: [] }))).toThrow(
      /event 7 \(EvaluationCompleted\)/,
    );
  });

  it("an unknown type or an unsafe job id is refused", () => {
    expect(() => decodeEvent(row("JobTeleported", {}))).toThrow(/unknown event type 'JobTeleported'/);
    expect(() => decodeEvent({ ...row("JobQueued", { attempt: 1, invocation: 1 }), job_id: "../x" })).toThrow(/is not a plain name/);
  });
});
