/**
 * numpy's `Generator(PCG64(SeedSequence(seed)))`, as far as the Six-Hump Camel task draws from it
 * (its starting point: `uniform(low, high, size=2)`): SeedSequence's hash of an integer seed into
 * 128-bit state and increment, the PCG64 XSL-RR generator, and 53-bit doubles. BigInt carries the
 * 128-bit arithmetic; a task draws two numbers, so its cost does not matter.
 */

const MASK32 = 0xffffffffn;
const MASK64 = (1n << 64n) - 1n;
const MASK128 = (1n << 128n) - 1n;
const PCG_MULTIPLIER = 0x2360ed051fc65da44385df649fccf645n;

const INIT_A = 0x43b0d7e5;
const MULT_A = 0x931e8875;
const INIT_B = 0x8b51f9dd;
const MULT_B = 0x58f38ded;
const MIX_MULT_L = 0xca01f9dd;
const MIX_MULT_R = 0x4973f715;
const POOL_SIZE = 4;

const mul32 = (a: number, b: number) => Math.imul(a, b) >>> 0;

/** SeedSequence's entropy pool for a non-negative integer seed, and `generate_state` from it. */
function seedSequenceWords(seed: bigint, words: number): number[] {
  const entropy: number[] = [];
  for (let rest = seed; entropy.length === 0 || rest > 0n; rest >>= 32n) entropy.push(Number(rest & MASK32));
  let hashConst = INIT_A;
  const hashmix = (input: number): number => {
    let value = (input ^ hashConst) >>> 0;
    hashConst = mul32(hashConst, MULT_A);
    value = mul32(value, hashConst);
    return (value ^ (value >>> 16)) >>> 0;
  };
  const mix = (x: number, y: number): number => {
    const result = (mul32(MIX_MULT_L, x) - mul32(MIX_MULT_R, y)) >>> 0;
    return (result ^ (result >>> 16)) >>> 0;
  };
  const pool = Array.from({ length: POOL_SIZE }, (_, i) => hashmix(i < entropy.length ? entropy[i]! : 0));
  for (let src = 0; src < POOL_SIZE; src++) for (let dst = 0; dst < POOL_SIZE; dst++) if (src !== dst) pool[dst] = mix(pool[dst]!, hashmix(pool[src]!));
  for (let src = POOL_SIZE; src < entropy.length; src++) for (let dst = 0; dst < POOL_SIZE; dst++) pool[dst] = mix(pool[dst]!, hashmix(entropy[src]!));
  let stateConst = INIT_B;
  const out: number[] = [];
  for (let i = 0; i < words; i++) {
    let value = (pool[i % POOL_SIZE]! ^ stateConst) >>> 0;
    stateConst = mul32(stateConst, MULT_B);
    value = mul32(value, stateConst);
    out.push((value ^ (value >>> 16)) >>> 0);
  }
  return out;
}

export class NumpyPcg64 {
  private state = 0n;
  private readonly increment: bigint;

  constructor(seed: number) {
    if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`Seed must be a non-negative integer, got ${seed}`);
    const w = seedSequenceWords(BigInt(seed), 8);
    // generate_state(4, uint64): pairs of 32-bit words, low word first.
    const u64 = [0, 2, 4, 6].map((i) => BigInt(w[i]!) | (BigInt(w[i + 1]!) << 32n));
    const initState = (u64[0]! << 64n) | u64[1]!;
    const initSeq = (u64[2]! << 64n) | u64[3]!;
    this.increment = ((initSeq << 1n) | 1n) & MASK128;
    this.step();
    this.state = (this.state + initState) & MASK128;
    this.step();
  }

  private step(): void {
    this.state = (this.state * PCG_MULTIPLIER + this.increment) & MASK128;
  }

  /** The next 64-bit output (XSL-RR of the stepped state). */
  nextUint64(): bigint {
    this.step();
    const value = ((this.state >> 64n) ^ this.state) & MASK64;
    const rot = this.state >> 122n;
    return ((value >> rot) | (value << ((64n - rot) & 63n))) & MASK64;
  }

  /** A double in [0, 1) from the top 53 bits. */
  nextDouble(): number {
    return Number(this.nextUint64() >> 11n) / 9007199254740992;
  }

  /** `Generator.uniform(low, high)`. */
  uniform(low: number, high: number): number {
    return low + (high - low) * this.nextDouble();
  }
}
