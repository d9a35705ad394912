/** ParetobasedPS's frontier (priority-search-pareto.ts) on hand-built candidates. */
import { describe, expect, it } from "vitest";
import type { Optimizer } from "../../../../src/opt/optimizer.js";
import type { MemoryEntry, SearchCandidate } from "../../../../src/opt/trainers/priority-search-memory.js";
import { distinctTasks, paretoFrontier } from "../../../../src/opt/trainers/priority-search-pareto.js";

const optimizer = {} as Optimizer;
let nextId = 0;
/** A candidate with (input, score) rollouts. */
function candidate(rollouts: [unknown, number][]): SearchCandidate {
  return { id: nextId++, values: { id: nextId }, optimizer, parentId: null, scores: rollouts.map((r) => r[1]), inputs: rollouts.map((r) => r[0]) };
}
const entries = (cs: SearchCandidate[]): MemoryEntry[] => cs.map((candidate) => ({ priority: 0, candidate }));

describe("paretoFrontier", () => {
  const tasks = distinctTasks([0, 1, 2, 0]);

  it("dedupes tasks by value, in first-seen order", () => {
    expect(tasks).toEqual(["0", "1", "2"]);
  });

  it("keeps a candidate best on one task even when its mean is the worst, and sorts the frontier by mean", () => {
    const specialist = candidate([[0, 0], [1, -9], [2, -9]]);
    const generalist = candidate([[0, -1], [1, -1], [2, -1]]);
    const middling = candidate([[0, -2], [1, -2], [2, -2]]);
    expect(paretoFrontier(entries([specialist, middling, generalist]), tasks, 10)).toEqual([generalist, specialist]);
  });

  it("drops a candidate whose best-on tasks are a strict subset of another's, and cuts to the limit", () => {
    const both = candidate([[0, 0], [1, 0], [2, -5]]);
    const tiedOnZero = candidate([[0, 0], [1, -3], [2, -5]]);
    const third = candidate([[0, -4], [1, -4], [2, -1]]);
    // tiedOnZero is best only on task 0, where `both` is best too (and `both` also on task 1).
    expect(paretoFrontier(entries([tiedOnZero, both, third]), tasks, 10)).toEqual([both, third]);
    expect(paretoFrontier(entries([tiedOnZero, both, third]), tasks, 1)).toEqual([both]);
  });

  it("scores a task a candidate never ran as 0 (the reference's rule), so with negative scores the unseen win it", () => {
    const seen = candidate([[0, -1], [1, -1], [2, -1]]);
    const unseenOnTwo = candidate([[0, -2], [1, -2]]);
    expect(paretoFrontier(entries([seen, unseenOnTwo]), tasks, 10)).toEqual([seen, unseenOnTwo]);
  });
});
