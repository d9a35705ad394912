import { describe, expect, it } from "vitest";
import type { Rng } from "../../../../src/opt/rng.js";
import {
  bestByMean,
  computeWins,
  gepaSettings,
  parentWeights,
  rankByWinsAndMean,
  samplePair,
  sampleParent,
  trimBuffer,
  uniformMerge,
  type GepaCandidate,
} from "../../../../src/opt/trainers/gepa-core.js";
import { GEPA_BASE, GEPA_BEAM, GEPA_UCB, gepaBaseTrainer, gepaBeamTrainer, gepaUcbTrainer } from "../../../../src/opt/trainers/gepa.js";

/** An Rng that returns the given draws in order (then `fallback`); `int(n)` = floor(next() · n). */
function fakeRng(draws: readonly number[], fallback = 0): Rng & { used: () => number } {
  const queue = [...draws];
  let used = 0;
  const next = () => {
    used++;
    return queue.length > 0 ? queue.shift()! : fallback;
  };
  return { next, int: (n) => Math.floor(next() * n), fork: () => fakeRng([], fallback), used: () => used };
}

let ids = 0;
function cand(evalVector: (number | null)[], extra: Partial<GepaCandidate> = {}): GepaCandidate {
  const mean = evalVector.some((v) => v === null) ? -Infinity : (evalVector as number[]).reduce((s, v) => s + v, 0) / evalVector.length;
  return { id: ids++, values: { v: ids }, evalVector, mean, parentIds: [], ancestors: new Set(), createdIter: 0, wins: 0, ...extra };
}

describe("GEPA wins (Pareto 'best for at least one instance')", () => {
  it("credits the strictly best candidate per instance, the first one on ties", () => {
    const a = cand([1, 5, 2]);
    const b = cand([3, 5, 2]);
    const c = cand([0, 1, 9]);
    computeWins([a, b, c]);
    expect([a.wins, b.wins, c.wins]).toEqual([1, 1, 1]); // instance 1 ties 5/5: the first (a) wins
    computeWins([b, a, c]);
    expect([b.wins, a.wins, c.wins]).toEqual([2, 0, 1]);
  });

  it("treats an invalid (null) score as −∞ and credits nobody when all are invalid", () => {
    const a = cand([null, null]);
    const b = cand([null, -4]);
    computeWins([a, b]);
    expect([a.wins, b.wins]).toEqual([0, 1]);
  });

  it("weights parents by max(1, wins)^(1/T): every candidate keeps weight ≥ 1", () => {
    const cs = [cand([0, 0, 0]), cand([9, 0, 0]), cand([0, 1, 1])];
    computeWins(cs);
    expect(parentWeights(cs)).toEqual([1, 1, 2]);
    expect(parentWeights(cs, 0.5)).toEqual([1, 1, 4]);
  });

  it("samples the parent from one draw on the cumulative weights (wins, not mean)", () => {
    const cs = [cand([0, 0, 0]), cand([10, 0, 0]), cand([0, 1, 1])]; // weights 1, 1, 2 of 4; cs[1] has the best mean
    expect(sampleParent(cs, fakeRng([0.2]))).toBe(cs[0]);
    expect(sampleParent(cs, fakeRng([0.3]))).toBe(cs[1]);
    expect(sampleParent(cs, fakeRng([0.55]))).toBe(cs[2]); // uniform sampling would give cs[1]
    const single = fakeRng([0.9]);
    expect(sampleParent([cs[0]!], single)).toBe(cs[0]);
    expect(single.used()).toBe(1); // one draw even with a single candidate (keeps the draw order fixed)
  });

  it("picks the argmax of the weights without a draw when T ≤ 0", () => {
    const cs = [cand([0, 0, 0]), cand([10, 0, 0]), cand([0, 1, 1])];
    const rng = fakeRng([]);
    expect(sampleParent(cs, rng, 0)).toBe(cs[2]);
    expect(rng.used()).toBe(0);
  });

  it("ranks by (wins, mean), keeping buffer order on ties", () => {
    const a = cand([1, 0]); // wins 1, mean 0.5
    const b = cand([0, 3]); // wins 1, mean 1.5
    const c = cand([0, 0]); // wins 0
    const d = cand([0, 3]); // ties b on instance 1 but comes later: wins 0, mean 1.5
    expect(rankByWinsAndMean([a, b, c, d]).map((x) => x.id)).toEqual([b.id, a.id, d.id, c.id]);
  });
});

describe("GEPA merge helpers", () => {
  it("draws two distinct indices", () => {
    expect(samplePair(3, fakeRng([0, 0]))).toEqual([0, 1]);
    expect(samplePair(3, fakeRng([0.9, 0.9]))).toEqual([2, 1]);
    expect(samplePair(3, fakeRng([0.5, 0.5]))).toEqual([1, 2]);
    const seen = new Set<string>();
    for (let i = 0; i < 3; i++) for (let j = 0; j < 2; j++) seen.add(samplePair(3, fakeRng([(i + 0.5) / 3, (j + 0.5) / 2])).join());
    expect([...seen].sort()).toEqual(["0,1", "0,2", "1,0", "1,2", "2,0", "2,1"]);
  });

  it("crosses over each shared parameter with probability ½ (one draw each, in order)", () => {
    const a = { x: "ax", y: "ay" };
    const b = { x: "bx", y: "by" };
    const rng = fakeRng([0.1, 0.7]);
    expect(uniformMerge(a, b, ["x", "y"], rng)).toEqual({ x: "ax", y: "by" });
    expect(rng.used()).toBe(2);
    expect(uniformMerge(a, b, ["x", "y"], fakeRng([0.5, 0.49]))).toEqual({ x: "bx", y: "ay" });
  });

  it("takes a parameter only one parent has from it without a draw (gepa-code: disjoint keys, no draw)", () => {
    const rng = fakeRng([0.9]);
    expect(uniformMerge({ a: 3 }, { b: 5, a: 1 }, ["a", "b"], rng)).toEqual({ a: 1, b: 5 });
    expect(rng.used()).toBe(1);
    const none = fakeRng([]);
    expect(uniformMerge({ a: 3 }, { b: 5 }, ["a", "b"], none)).toEqual({ a: 3, b: 5 });
    expect(none.used()).toBe(0);
  });
});

describe("GEPA buffer limits", () => {
  it("GEPA-Base/Beam keep the top `limit` by (wins, mean), re-ordering the buffer", () => {
    const a = cand([1, 0, 0]); // wins 1, mean 1/3
    const b = cand([0, 0, 0]); // wins 0, mean 0
    const c = cand([0, 2, 0]); // wins 1, mean 2/3
    const d = cand([0, 0, 5]); // wins 1, mean 5/3
    const buffer = [a, b, c, d];
    expect(trimBuffer(buffer, 4, "keep-top")).toEqual([]);
    expect(buffer).toEqual([a, b, c, d]);
    expect(trimBuffer(buffer, 2, "keep-top")).toEqual([a, b]);
    expect(buffer).toEqual([d, c]);
  });

  it("GEPA-UCB evicts the one lowest (wins, mean) candidate per call, re-ordering the buffer ascending", () => {
    const a = cand([1, 0, 0]);
    const b = cand([0, 0, 0]);
    const c = cand([0, 2, 0]);
    const d = cand([0, 0, 5]);
    const buffer = [a, b, c, d];
    expect(trimBuffer(buffer, 3, "evict-lowest")).toEqual([b]);
    expect(buffer).toEqual([a, c, d]);
    // One per iteration, as the reference: an accepted merge can leave the buffer one over.
    expect(trimBuffer(buffer, 1, "evict-lowest")).toEqual([a]);
    expect(buffer).toEqual([c, d]);
  });

  it("returns the first candidate with the highest mean (invalid = −∞)", () => {
    const a = cand([null]);
    const b = cand([2]);
    const c = cand([2]);
    expect(bestByMean([a, b, c])).toBe(b);
    expect(bestByMean([a])).toBe(a);
  });
});

describe("GEPA kwargs", () => {
  it("uses the Python class defaults when a kwarg is missing", () => {
    expect(gepaSettings({}, GEPA_BASE)).toEqual({ iterations: 100, trainBatchSize: 2, mergeEvery: 5, paretoSubsetSize: 24, maxBufferSize: 16 });
    expect(gepaSettings({}, GEPA_UCB)).toEqual({ iterations: 120, trainBatchSize: 2, mergeEvery: 6, paretoSubsetSize: 24, maxBufferSize: 16 });
    expect(gepaSettings({}, GEPA_BEAM)).toEqual({ iterations: 120, trainBatchSize: 2, mergeEvery: 6, paretoSubsetSize: 24, maxBufferSize: 16 });
  });

  it("reads the Trace-Bench defaults (spec §2.6) under each variant's iteration kwarg", () => {
    const traceBench = { train_batch_size: 2, merge_every: 2, pareto_subset_size: 2 };
    expect(gepaSettings({ ...traceBench, num_iters: 1, num_search_iterations: 9 }, GEPA_BASE).iterations).toBe(1);
    expect(gepaSettings({ ...traceBench, num_search_iterations: 1, num_iters: 9 }, GEPA_UCB)).toEqual({
      iterations: 1,
      trainBatchSize: 2,
      mergeEvery: 2,
      paretoSubsetSize: 2,
      maxBufferSize: 16,
    });
    expect(gepaSettings({ num_search_iterations: 3, num_iters: 9 }, GEPA_BEAM).iterations).toBe(3);
    expect(gepaSettings({ max_buffer_size: 4 }, GEPA_UCB).maxBufferSize).toBe(4);
    expect(gepaSettings({ max_buffer_size: 4 }, GEPA_BASE).maxBufferSize).toBe(16); // fixed at 16 in GEPAAlgorithmBase
  });

  it("disables merging with merge_every 0 or null and rejects malformed values", () => {
    expect(gepaSettings({ merge_every: 0 }, GEPA_BASE).mergeEvery).toBe(0);
    expect(gepaSettings({ merge_every: null }, GEPA_BASE).mergeEvery).toBe(0);
    expect(() => gepaSettings({ num_iters: "3" }, GEPA_BASE)).toThrow(/GEPA-Base: num_iters must be an integer ≥ 0/);
    expect(() => gepaSettings({ train_batch_size: 0 }, GEPA_UCB)).toThrow(/train_batch_size must be an integer ≥ 1/);
    expect(() => gepaSettings({ pareto_subset_size: 1.5 }, GEPA_BEAM)).toThrow(/pareto_subset_size/);
  });

  it("declares the kwargs each trainer reads", () => {
    expect(gepaBaseTrainer.id).toBe("GEPA-Base");
    expect(gepaUcbTrainer.id).toBe("GEPA-UCB");
    expect(gepaBeamTrainer.id).toBe("GEPA-Beam");
    expect(gepaBaseTrainer.kwargs).toEqual(["num_iters", "train_batch_size", "merge_every", "pareto_subset_size", "num_threads"]);
    expect(gepaUcbTrainer.kwargs).toEqual([
      "num_search_iterations",
      "train_batch_size",
      "merge_every",
      "pareto_subset_size",
      "num_threads",
      "max_buffer_size",
      "ucb_exploration_factor",
      "log_frequency",
    ]);
    expect(gepaBeamTrainer.kwargs).toEqual(["num_search_iterations", "train_batch_size", "merge_every", "pareto_subset_size", "num_threads", "log_frequency"]);
  });
});
