/** ParetobasedPS's frontier (priority-search-pareto.ts) on hand-built candidates. */
import { describe, expect, it } from "vitest";
import type { Optimizer } from "../../../../src/opt/optimizer.js";
import type { MemoryEntry, SearchCandidate } from "../../../../src/opt/trainers/priority-search-memory.js";
import { acceptedTrainerKwargs, findTrainer } from "../../../../src/opt/trainer-catalog.js";
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

describe("paretoFrontier ties", () => {
  it("breaks ties of the mean sort by the first task a candidate is best on, then by memory order", () => {
    const tasks = distinctTasks([0, 1]);
    const onZero = candidate([[0, 0], [1, -2]]);
    const onOne = candidate([[0, -2], [1, 0]]);
    const alsoOnZero = candidate([[0, 0], [1, -2]]);
    const memory = (...cs: SearchCandidate[]) => entries(cs);
    // All means are −1. onZero (task 0) comes before onOne (task 1) whatever the memory order.
    expect(paretoFrontier(memory(onOne, onZero), tasks, 1)).toEqual([onZero]);
    // Two candidates best on the same tasks keep the memory's order (highest priority, then newest, in a snapshot).
    expect(paretoFrontier(memory(alsoOnZero, onZero, onOne), tasks, 3)).toEqual([alsoOnZero, onZero, onOne]);
    expect(paretoFrontier(memory(onZero, alsoOnZero, onOne), tasks, 3)).toEqual([onZero, alsoOnZero, onOne]);
  });
});

describe("ParetobasedPS trainer", () => {
  it("is listed, takes the PrioritySearch kwargs but not use_best_candidate_to_explore (its frontier replaces that step)", async () => {
    const info = findTrainer("ParetobasedPS");
    expect(info?.available).toBe(true);
    const accepted = await acceptedTrainerKwargs(info);
    for (const k of ["num_candidates", "num_proposals", "num_steps", "batch_size", "long_term_memory_size", "score_function"]) expect(accepted).toContain(k);
    expect(accepted).not.toContain("use_best_candidate_to_explore");
    expect(accepted).not.toContain("num_iters");
  });
});
