/**
 * How numpy orders and averages, where the reference's choices depend on it: `argmax` takes the
 * first of equal maxima, `argsort(...)[::-1]` lists equal values from the last index down (numpy
 * sorts these short arrays with a stable insertion sort, then the slice reverses it), and `mean`
 * sums with numpy's pairwise summation, whose rounding differs from a left-to-right loop once an
 * array has more than eight values.
 */

/** `int(np.argmax(values))`: the first index of the largest value (NaN wins, as in numpy). */
export function numpyArgmax(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("attempt to get argmax of an empty sequence");
  let best = 0;
  for (let i = 1; i < values.length; i++) {
    if (Number.isNaN(values[best]!)) return best;
    if (Number.isNaN(values[i]!) || values[i]! > values[best]!) best = i;
  }
  return best;
}

/** `list(np.argsort(values)[::-1])`: indices from the largest value down, equal values last index first. */
export function numpyArgsortDescending(values: readonly number[]): number[] {
  const ascending = values.map((_, i) => i).sort((a, b) => compareAscending(values[a]!, values[b]!) || a - b);
  return ascending.reverse();
}

/** numpy sorts NaN after every number. */
function compareAscending(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

const PAIRWISE_BLOCK = 128;

/** numpy's `pairwise_sum` of float64 values (umath loops): eight accumulators per block of 128. */
function pairwiseSum(values: readonly number[], start: number, n: number): number {
  if (n < 8) {
    let sum = -0;
    for (let i = start; i < start + n; i++) sum += values[i]!;
    return sum;
  }
  if (n <= PAIRWISE_BLOCK) {
    const r = values.slice(start, start + 8);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j]! += values[start + i + j]!;
    let sum = r[0]! + r[1]! + (r[2]! + r[3]!) + (r[4]! + r[5]! + (r[6]! + r[7]!));
    for (; i < n; i++) sum += values[start + i]!;
    return sum;
  }
  let half = Math.floor(n / 2);
  half -= half % 8;
  return pairwiseSum(values, start, half) + pairwiseSum(values, start + half, n - half);
}

/** `float(np.mean(values))` of a non-empty list of floats. */
export function numpyMean(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("mean of an empty sequence");
  return pairwiseSum(values, 0, values.length) / values.length;
}
