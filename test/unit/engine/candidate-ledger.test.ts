/**
 * The candidate ledger: candidate ids from trainable values, parents from the problem the optimizer
 * was shown, the split a batch comes from, texts stored once, and whether the job searched at all.
 */
import { describe, expect, it } from "vitest";
import { CandidateLedger } from "../../../src/engine/candidate-ledger.js";
import { contentRef } from "../../../src/events/content-ref.js";
import type { ParameterSpec } from "../../../src/domain/parameter.js";
import type { Proposal } from "../../../src/opt/optimizer.js";
import type { ProblemInstance } from "../../../src/opt/problem.js";
import type { Rollout } from "../../../src/opt/rollout.js";

const PARAMETERS: ParameterSpec[] = [
  { name: "a", kind: "number", value: 1, description: "", trainable: true },
  { name: "fixed", kind: "text", value: "x", description: "", trainable: false },
];
const DATASETS = { train: { inputs: ["t1", "t2"], infos: [1, 2] }, validate: { inputs: ["v1"], infos: [3] } };
const problem = (a: number) => ({ variables: [{ name: "a", kind: "number", type: "float", value: a, description: "" }] }) as unknown as ProblemInstance;
const proposal = (update: Record<string, number>, terminated = false): Proposal => ({ update, reply: "", reasoning: "", terminated, notes: [] });
const rollout = (input: string, score: number | null, feedback: string, scores?: Record<string, number>): Rollout => ({ input, info: null, response: null, score, feedback, ...(scores ? { scores } : {}) });

describe("CandidateLedger", () => {
  it("a candidate is its trainable values: other parameters do not change its id, and its values are stored once under it", () => {
    const ledger = new CandidateLedger(PARAMETERS, DATASETS);
    expect(ledger.idOf({ a: 1, fixed: "x" })).toBe(ledger.idOf({ a: 1, fixed: "y" }));
    expect(ledger.idOf({ a: 1 })).not.toBe(ledger.idOf({ a: 2 }));
    const first = ledger.candidateOf({ a: 1, fixed: "x" });
    expect(first.id).toBe(contentRef('{"a": 1}'));
    expect([...first.contents]).toEqual([[first.id, '{"a": 1}']]);
    expect(ledger.candidateOf({ a: 1 }).contents.size).toBe(0);
  });

  it("a proposed change is a child of the candidate its problem showed; the evaluation event carries parents, iteration, split, scores and feedback refs", () => {
    const ledger = new CandidateLedger(PARAMETERS, DATASETS);
    const shown = problem(1);
    ledger.problemBuilt(shown, { a: 1, fixed: "x" });
    ledger.proposed(shown, proposal({ a: 2 }));
    const { fact, contents } = ledger.evaluated(1, 3, { a: 2, fixed: "x" }, [{ input: "v1", info: 3 }], [rollout("v1", -0.5, "close", { acc: 0.5 })]);
    expect(fact).toEqual({
      type: "CandidateEvaluated",
      data: { attempt: 1, candidate: ledger.idOf({ a: 2 }), parents: [ledger.idOf({ a: 1 })], iteration: 3, split: "validate", score: -0.5, example_scores: [-0.5], scores: { acc: 0.5 }, feedback: [contentRef("close")] },
    });
    expect(contents.get(contentRef("close"))).toBe("close");
    expect(ledger.noSearch()).toBe(false);
    // A problem the ledger did not see built (a trainer's rewrite of one) shows its parent through its variables.
    ledger.proposed(problem(2), proposal({ a: 5 }));
    expect(ledger.evaluated(1, 4, { a: 5 }, [{ input: "t1", info: 1 }], [rollout("t1", 1, "ok")]).fact.data).toMatchObject({ parents: [ledger.idOf({ a: 2 })], split: "train" });
  });

  it("a batch with an unscored example has no score; a merge has both parents", () => {
    const ledger = new CandidateLedger(PARAMETERS, DATASETS);
    const { fact } = ledger.evaluated(1, 1, { a: 1 }, [{ input: "t1", info: 1 }, { input: "t2", info: 2 }], [rollout("t1", 1, "f"), rollout("t2", null, "f")]);
    expect(fact.data).toMatchObject({ score: null, example_scores: [1, null], feedback: [contentRef("f"), contentRef("f")], parents: [] });
    ledger.derived({ a: 3 }, [{ a: 1 }, { a: 2 }]);
    expect(ledger.evaluated(1, 2, { a: 3 }, [], []).fact.data).toMatchObject({ parents: [ledger.idOf({ a: 1 }), ledger.idOf({ a: 2 })], split: "other", score: null });
  });

  it("no search: the optimizer was asked and never changed a value (TERMINATE, or the same values); never asked is not 'no search'", () => {
    const ledger = new CandidateLedger(PARAMETERS, DATASETS);
    expect(ledger.noSearch()).toBe(false);
    const shown = problem(1);
    ledger.problemBuilt(shown, { a: 1 });
    ledger.proposed(shown, proposal({}, true));
    ledger.proposed(shown, proposal({ a: 1 }));
    expect(ledger.noSearch()).toBe(true);
    ledger.proposed(shown, proposal({ a: 4 }));
    expect(ledger.noSearch()).toBe(false);
  });
});
