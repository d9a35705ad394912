/** numpy's tie order and summation, where the objectives' choices depend on them. */
import { describe, expect, it } from "vitest";
import { numpyArgmax, numpyArgsortDescending, numpyMean } from "../../../../src/opt/objectives/numpy-order.js";

describe("numpy order", () => {
  it("argmax takes the first of equal maxima", () => {
    expect(numpyArgmax([1, 3, 3, 2])).toBe(1);
    expect(numpyArgmax([Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY])).toBe(0);
  });

  it("argsort(...)[::-1] lists equal values from the last index down", () => {
    expect(numpyArgsortDescending([0.5, 2, 2, -1])).toEqual([2, 1, 0, 3]);
    expect(numpyArgsortDescending([Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY])).toEqual([2, 1, 0]);
  });

  it("mean sums pairwise as numpy does (recorded: np.mean([0.1] * 10) == 0.1, a left-to-right sum gives 0.09999999999999999)", () => {
    const tenths = Array.from({ length: 10 }, () => 0.1);
    expect(tenths.reduce((a, b) => a + b, 0) / 10).toBe(0.09999999999999999);
    expect(numpyMean(tenths)).toBe(0.1);
  });
});

describe("numpy order beyond 16 values (deliberate difference)", () => {
  it("ties keep the last-index-first order for any length, where numpy's introsort scatters them (recorded: np.argsort([1., 2.] * 15)[::-1] starts 29, 27, 25, 17)", () => {
    const values = Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? 1 : 2));
    expect(numpyArgsortDescending(values)).toEqual([29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0]);
  });
});
