/**
 * POLCA's ε-net selection on hand-built embeddings. Each case states the original's rule
 * (POLCA.filter_candidates) it works through; the expected kept candidates are worked out by hand.
 */
import { describe, expect, it } from "vitest";
import { distanceToNet, epsilonNetSelect, euclideanDistance } from "../../../../src/opt/trainers/polca-epsilon-net.js";

const c = (item: string, embedding: number[]) => ({ item, embedding });

describe("POLCA ε-net", () => {
  it("distance to the memory is the least L2 distance to any member; an empty memory is infinitely far", () => {
    expect(euclideanDistance([0, 0], [3, 4])).toBe(5);
    expect(distanceToNet([[0, 0], [3, 3]], [3, 4])).toBe(1);
    expect(distanceToNet([], [1, 2])).toBe(Infinity);
  });

  it("drops a new candidate within ε of the memory, keeps one strictly farther than ε", () => {
    // Memory at the origin, ε = 0.5: A at 0.3 is inside the ball, B at 2 is outside.
    const r = epsilonNetSelect([[0, 0]], [c("A", [0.3, 0]), c("B", [0, 2])], 0.5);
    expect(r.added).toEqual(["B"]);
    expect(r.distances).toEqual([2]);
  });

  it("a candidate exactly at distance ε is dropped (the rule keeps distance > ε only)", () => {
    const r = epsilonNetSelect([[0, 0]], [c("edge", [0.5, 0])], 0.5);
    expect(r.added).toEqual([]);
  });

  it("adds the farthest survivor first, and later candidates are measured against it too", () => {
    // Memory {(0,0)}, ε = 1. Round 1: A (10,0) d=10, B (10,0.5) d≈10.01, C (0,3) d=3 → B joins.
    // Round 2: A is 0.5 from B (≤ ε) and is dropped for good; C is 3 from the origin → C joins.
    const r = epsilonNetSelect([[0, 0]], [c("A", [10, 0]), c("B", [10, 0.5]), c("C", [0, 3])], 1);
    expect(r.added).toEqual(["B", "C"]);
    expect(r.distances[0]).toBeCloseTo(Math.hypot(10, 0.5), 12);
    expect(r.distances[1]).toBe(3);
  });

  it("two new candidates close to each other but far from memory: only the farther one is kept", () => {
    // A (5,0) and B (5.2,0) are 0.2 apart; ε = 1. B is farther from the origin (5.2) → joins; A is then 0.2 from B.
    const r = epsilonNetSelect([[0, 0]], [c("A", [5, 0]), c("B", [5.2, 0])], 1);
    expect(r.added).toEqual(["B"]);
  });

  it("ties go to the first candidate in proposal order (numpy's argmax)", () => {
    // A and B are both 2 from the origin and 4 from each other: A joins first; B is then still 2
    // from the net (its nearest member is the origin, not A), so it joins next.
    const r = epsilonNetSelect([[0, 0]], [c("A", [2, 0]), c("B", [-2, 0])], 1);
    expect(r.added).toEqual(["A", "B"]);
    expect(r.distances).toEqual([2, 2]);
  });

  it("a proposal equal to a member of the memory is at distance 0 and is dropped for any ε > 0", () => {
    const r = epsilonNetSelect([[1, 1], [2, 2]], [c("same", [2, 2])], 1e-9);
    expect(r.added).toEqual([]);
  });

  it("with an empty memory the first candidate joins at distance ∞", () => {
    const r = epsilonNetSelect([], [c("A", [0, 0]), c("B", [0, 0.1])], 0.5);
    expect(r.added).toEqual(["A"]);
    expect(r.distances).toEqual([Infinity]);
  });

  it("nothing proposed, nothing added", () => {
    expect(epsilonNetSelect([[0]], [], 0.1)).toEqual({ added: [], distances: [] });
  });

  it("embeddings of different lengths are an error naming the cause", () => {
    expect(() => epsilonNetSelect([[0, 0]], [c("A", [1, 2, 3])], 0.1)).toThrow(/different lengths \(2 and 3\)/);
  });
});
