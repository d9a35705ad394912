/**
 * The candidate table of a job, folded from its events: each candidate once, the iteration that
 * introduced it, its parents and changes, the job's marks, the lineage from the initial values to
 * the best; a log from before candidates were recorded has none, and only the latest attempt counts.
 */
import { describe, expect, it } from "vitest";
import { contentRef } from "../../../src/events/content-ref.js";
import type { StoredEvent } from "../../../src/events/event-schema.js";
import { candidateContentRefs, candidateTables } from "../../../src/events/projections/candidate-table.js";

const JOB = "job000000001";
let seq = 0;
const event = (type: string, data: Record<string, unknown>): StoredEvent =>
  ({ seq: ++seq, v: 2, stream: `job-${JOB}`, position: seq, type, run_id: "r", job_id: JOB, ts: "2026-01-01T00:00:00.000Z", data }) as unknown as StoredEvent;

const valuesOf = (code: string) => JSON.stringify({ __code: code });
const A = valuesOf("def f():\n    return 1");
const B = valuesOf("def f():\n    return 2");
const C = valuesOf("def f():\n    x = 3\n    return x");
const [a, b, c] = [A, B, C].map(contentRef) as [string, string, string];
const contents = new Map([[a, A], [b, B], [c, C]]);

const evaluation = (phase: string, candidate: string | undefined, score: number) => event("EvaluationCompleted", { attempt: 1, phase, split: "train_dataset", score, feedback: `${phase} fb`, example_scores: [score], ...(candidate ? { candidate } : {}) });
const candidate = (id: string, parents: string[], iteration: number, score: number) =>
  event("CandidateEvaluated", { attempt: 1, candidate: id, parents, iteration, split: "train", score, example_scores: [score], feedback: [contentRef("fb")] });

describe("candidateTables", () => {
  it("lists each candidate once with the iteration that introduced it, parents, scores, marks and changes; the lineage runs from the initial values to the best", () => {
    const events = [
      event("JobQueued", { attempt: 1, invocation: 1 }),
      evaluation("initial", a, 1),
      candidate(a, [], 1, 1),
      candidate(b, [a], 1, 2),
      candidate(b, [a], 2, 4),
      candidate(c, [b], 2, 0),
      evaluation("final", b, 3),
    ];
    expect(candidateContentRefs(events)).toEqual(new Set([a, b, c]));
    const [table] = candidateTables(events, contents);
    expect(table!.job_id).toBe(JOB);
    expect(table!.candidates.map((x) => [x.candidate, x.introduced, x.parents, x.mean_score, x.best_score, x.marks])).toEqual([
      [a, 0, [], 1, 1, ["initial"]],
      [b, 1, [a], 3, 4, ["final", "best"]],
      [c, 2, [b], 0, 0, []],
    ]);
    expect(table!.candidates[2]!.changes).toEqual([{ parameter: "__code", added: 2, removed: 1 }]);
    expect(table!.candidates[1]!.values).toEqual({ __code: "def f():\n    return 2" });
    expect(table!.lineage).toEqual([a, b]);
  });

  it("the best is the initial candidate when the final one scored lower; only the latest attempt is shown", () => {
    const events = [
      event("JobQueued", { attempt: 1, invocation: 1 }),
      evaluation("initial", c, 9),
      event("JobQueued", { attempt: 2, invocation: 2 }),
      { ...evaluation("initial", a, 1), data: { attempt: 2, phase: "initial", split: "s", score: 1, feedback: "", example_scores: [1], candidate: a } } as StoredEvent,
      { ...candidate(b, [a], 1, 0), data: { attempt: 2, candidate: b, parents: [a], iteration: 1, split: "train", score: 0, example_scores: [0], feedback: [] } } as StoredEvent,
      { ...evaluation("final", b, 0), data: { attempt: 2, phase: "final", split: "s", score: 0, feedback: "", example_scores: [0], candidate: b } } as StoredEvent,
    ];
    const [table] = candidateTables(events, contents);
    expect(table!.attempt).toBe(2);
    expect(table!.candidates.map((x) => [x.candidate, x.marks])).toEqual([
      [a, ["initial", "best"]],
      [b, ["final"]],
    ]);
    expect(table!.lineage).toEqual([a]);
  });

  it("a log written before candidates were recorded has a table with no candidate", () => {
    const [table] = candidateTables([event("JobQueued", { attempt: 1, invocation: 1 }), evaluation("initial", undefined, 1), evaluation("final", undefined, 2)], new Map());
    expect(table).toEqual({ job_id: JOB, attempt: 1, candidates: [], lineage: [] });
  });
});
