/**
 * numpy's legacy `RandomState` (MT19937), for the draws of `tie_break: random_seeded`: the
 * reference breaks Pareto ties with `RandomState(seed).randint(n)` and `RandomState(seed +
 * rank).shuffle(list)`, so the same seed must pick the same candidate here. Only what those two
 * calls need is ported: integer seeding, 32-bit outputs, the masked rejection sampling of
 * `randint` and the Fisher–Yates walk of `shuffle` on a list.
 */

const N = 624;
const M = 397;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;
const MATRIX_A = 0x9908b0df;

/** The Mersenne Twister MT19937, seeded as numpy seeds it from a single integer (`init_genrand`). */
export class Mt19937 {
  private readonly state = new Uint32Array(N);
  private position = N;

  constructor(seed: number) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new RangeError(`Seed must be between 0 and 2**32 - 1, got ${seed}`);
    this.state[0] = seed >>> 0;
    for (let i = 1; i < N; i++) {
      const previous = this.state[i - 1]! ^ (this.state[i - 1]! >>> 30);
      this.state[i] = (Math.imul(1812433253, previous) + i) >>> 0;
    }
  }

  /** The next 32-bit output (`genrand_int32`). */
  nextUint32(): number {
    if (this.position >= N) this.twist();
    let y = this.state[this.position++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  private twist(): void {
    const s = this.state;
    for (let i = 0; i < N; i++) {
      const y = (s[i]! & UPPER_MASK) | (s[(i + 1) % N]! & LOWER_MASK);
      s[i] = s[(i + M) % N]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
    }
    this.position = 0;
  }
}

/** The smallest all-ones mask covering `max` (numpy's `gen_mask`). */
function maskFor(max: number): number {
  let mask = max >>> 0;
  mask |= mask >>> 1;
  mask |= mask >>> 2;
  mask |= mask >>> 4;
  mask |= mask >>> 8;
  mask |= mask >>> 16;
  return mask >>> 0;
}

/** A uniform integer in [0, max] by masked rejection, as numpy draws bounded integers below 2**32. */
function maskedInterval(bits: Mt19937, max: number): number {
  if (max === 0) return 0;
  const mask = maskFor(max);
  for (;;) {
    const value = (bits.nextUint32() & mask) >>> 0;
    if (value <= max) return value;
  }
}

/** `numpy.random.RandomState(seed)`, limited to the calls the objectives make. */
export class NumpyRandomState {
  private readonly bits: Mt19937;

  constructor(seed: number) {
    this.bits = new Mt19937(seed);
  }

  /** `randint(high)`: uniform in [0, high). */
  randint(high: number): number {
    if (!Number.isInteger(high) || high <= 0) throw new RangeError(`randint: high must be a positive integer, got ${high}`);
    if (high - 1 > 0xffffffff) throw new RangeError("randint: ranges wider than 2**32 are not ported");
    return maskedInterval(this.bits, high - 1);
  }

  /** `shuffle(list)` in place: swap each position from the last down with one drawn at or before it. */
  shuffle<T>(items: T[]): void {
    for (let i = items.length - 1; i > 0; i--) {
      const j = maskedInterval(this.bits, i);
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
  }

  /** The next raw 32-bit output, for tests against published MT19937 vectors. */
  nextUint32(): number {
    return this.bits.nextUint32();
  }
}
