import { describe, expect, it } from "vitest";
import { callsOfStep, contentRefsOf, stepsOf, transcriptEntries } from "../../../src/events/projections/call-transcript.js";
import { llmCallRecords } from "../../../src/events/projections/llm-call-records.js";
import { runStarted } from "../../support/events.js";
import { callCompleted, callFailed, callStarted, iteration, jobQueued, legacyCompleted, promptRef, replyRef, storedEvents } from "../../support/llm-events.js";

const log = storedEvents([
  runStarted(["a", "b"]),
  jobQueued("a", 1),
  callStarted("a", 1, 1),
  callCompleted("a", 1, 1, [10, 2]),
  iteration("a", 1, 1),
  callStarted("a", 1, 2),
  callCompleted("a", 1, 2, [10, 2]),
  callStarted("a", 1, 3),
  callFailed("a", 1, 3),
  iteration("a", 1, 2),
  callStarted("a", 1, 4), // after the last step: in no step
  jobQueued("a", 2),
  callStarted("a", 2, 1),
  callCompleted("a", 2, 1, [10, 2], { replayed: true }),
  iteration("a", 2, 1),
  jobQueued("b", 1),
  callStarted("b", 1, 1),
  callCompleted("b", 1, 1, [1, 1]),
  iteration("b", 1, 2),
]);
const records = llmCallRecords(log);
const ids = (rs: readonly { job_id: string; attempt: number; call: number | null }[]) => rs.map((r) => `${r.job_id}/${r.attempt}/${r.call}`);

describe("callsOfStep", () => {
  it("step N: per job and attempt, calls after the previous IterationCompleted (or the attempt's start) up to step N's", () => {
    expect(ids(callsOfStep(log, records, 1)!)).toEqual(["a/1/1", "a/2/1"]);
    expect(ids(callsOfStep(log, records, 2)!)).toEqual(["a/1/2", "a/1/3", "b/1/1"]);
  });

  it("null when no job has the step; stepsOf lists the steps there are", () => {
    expect(callsOfStep(log, records, 3)).toBeNull();
    expect(stepsOf(log, "b")).toEqual([2]);
    expect(stepsOf(log, null)).toEqual([1, 2]);
  });
});

describe("transcriptEntries", () => {
  it("prompt messages and replies from the stored texts; a text not stored is null", () => {
    const picked = records.filter((r) => r.job_id === "a" && r.attempt === 1);
    expect(contentRefsOf(picked)).toEqual(new Set([promptRef("a", 1, 1), replyRef("a", 1, 1), promptRef("a", 1, 2), replyRef("a", 1, 2), promptRef("a", 1, 3), promptRef("a", 1, 4)]));
    const contents = new Map([
      [promptRef("a", 1, 1), "what is x?"],
      [replyRef("a", 1, 1), "x = 1"],
    ]);
    const [first, second, failed, lost] = transcriptEntries(picked, contents);
    expect(first).toMatchObject({ outcome: "completed", messages: [{ role: "user", text: "what is x?" }], reply: "x = 1", total_tokens: 12, latency_ms: 5 });
    expect(second).toMatchObject({ messages: [{ role: "user", text: null }], reply: null });
    expect(failed).toMatchObject({ outcome: "failed", error: "rate_limited 429, 2 retries: slow down", total_tokens: null, latency_ms: 30 });
    expect(lost).toMatchObject({ outcome: "lost", error: null, latency_ms: null, reply: null });
  });

  it("legacy calls: no prompt recorded (messages null), the reply from the event itself", () => {
    const legacy = llmCallRecords(storedEvents([runStarted(["a"]), legacyCompleted("a", 1, [3, 4], "old reply")]));
    expect(transcriptEntries(legacy, new Map())).toMatchObject([{ call: null, outcome: "completed", messages: null, reply: "old reply", total_tokens: 7 }]);
  });
});
