/**
 * Tests for paired differences (arm A − arm B on the jobs both ran), reproducible to the bit:
 *
 * - sign test: two-sided exact binomial p of the positive and negative differences (ties dropped),
 *   `min(1, 2 · P(X ≤ min(pos, neg)))` with X ~ Binomial(pos + neg, ½);
 * - paired permutation (sign-flip) test of the mean difference: under "no difference" each pair's
 *   sign is a coin flip; p is the share of the 2^n sign assignments whose |mean| is at least the
 *   observed one. Exact up to `EXACT_PERMUTATION_MAX_N` pairs; beyond, `PERMUTATION_DRAWS` random
 *   assignments from the repo's seeded generator with a fixed seed, p = (hits + 1) / (draws + 1)
 *   (never 0), so the same differences always give the same p.
 */
import { createRng } from "../../domain/rng.js";

export const EXACT_PERMUTATION_MAX_N = 16;
export const PERMUTATION_DRAWS = 20_000;
export const PERMUTATION_SEED = 20_261_126;

/** Relative slack when comparing a permuted |mean| with the observed one (sums in another order differ in the last bits). */
const SLACK = 1e-12;

/** log(k!) table, for binomial probabilities without overflow. */
function logFactorials(n: number): Float64Array {
  const table = new Float64Array(n + 1);
  for (let k = 2; k <= n; k++) table[k] = table[k - 1]! + Math.log(k);
  return table;
}

export interface SignTest {
  readonly positive: number;
  readonly negative: number;
  readonly ties: number;
  /** Two-sided exact p; 1 when every difference is a tie. */
  readonly p: number;
}

export function signTest(differences: readonly number[]): SignTest {
  const positive = differences.filter((d) => d > 0).length;
  const negative = differences.filter((d) => d < 0).length;
  const n = positive + negative;
  const ties = differences.length - n;
  if (n === 0) return { positive, negative, ties, p: 1 };
  const lf = logFactorials(n);
  let tail = 0;
  for (let k = 0; k <= Math.min(positive, negative); k++) tail += Math.exp(lf[n]! - lf[k]! - lf[n - k]! - n * Math.LN2);
  return { positive, negative, ties, p: Math.min(1, 2 * tail) };
}

export interface PermutationTest {
  readonly p: number;
  readonly method: "exact" | "monte_carlo";
  /** Sign assignments looked at: 2^n when exact, else the draws. */
  readonly assignments: number;
}

export function permutationTest(differences: readonly number[]): PermutationTest {
  const n = differences.length;
  if (n === 0) return { p: 1, method: "exact", assignments: 0 };
  const abs = differences.map(Math.abs);
  const observed = Math.abs(differences.reduce((a, b) => a + b, 0));
  const threshold = observed - SLACK * Math.max(1, observed);
  if (n <= EXACT_PERMUTATION_MAX_N) {
    const total = 2 ** n;
    let hits = 0;
    for (let mask = 0; mask < total; mask++) {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += mask & (1 << i) ? -abs[i]! : abs[i]!;
      if (Math.abs(sum) >= threshold) hits++;
    }
    return { p: hits / total, method: "exact", assignments: total };
  }
  const rng = createRng(PERMUTATION_SEED);
  let hits = 0;
  for (let draw = 0; draw < PERMUTATION_DRAWS; draw++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += rng.int(2) === 0 ? abs[i]! : -abs[i]!;
    if (Math.abs(sum) >= threshold) hits++;
  }
  return { p: (hits + 1) / (PERMUTATION_DRAWS + 1), method: "monte_carlo", assignments: PERMUTATION_DRAWS };
}
