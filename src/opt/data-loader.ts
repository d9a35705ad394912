/**
 * OpenTrace's DataLoader (algorithms reference §1.6) on the job's seeded RNG: each epoch a fresh
 * permutation; `next()` always returns exactly `batchSize` examples. When the permutation runs out
 * mid-batch, the batch is filled from a new permutation and the epoch ends there: the next call
 * reports the end (`null`, Python's StopIteration) and draws yet another permutation, so the next
 * epoch starts fresh (parity scenario dataloader-epochs: N=4, B=3, 2 epochs → 4 batches).
 */
import type { Example } from "./rollout.js";
import type { Rng } from "./rng.js";

export function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** `k` distinct items drawn at random (all of them, shuffled, when k ≥ the count). */
export function sampleWithoutReplacement<T>(items: readonly T[], k: number, rng: Rng): T[] {
  return shuffled(items, rng).slice(0, Math.max(0, k));
}

export class DataLoader {
  nEpochs = 0;
  private order: number[] = [];
  private position = 0;
  private endReached = false;

  constructor(
    private readonly examples: readonly Example[],
    readonly batchSize: number,
    private readonly rng: Rng,
    private readonly randomize = true,
  ) {
    if (examples.length === 0) throw new Error("cannot load batches from an empty dataset");
    this.order = this.permutation();
  }

  private permutation(): number[] {
    const indices = this.examples.map((_, i) => i);
    return this.randomize ? shuffled(indices, this.rng) : indices;
  }

  private newEpoch(): void {
    this.order = this.permutation();
    this.position = 0;
    this.nEpochs += 1;
  }

  /** The next batch, or null once when an epoch has just ended (a new permutation is then drawn). */
  next(): Example[] | null {
    if (this.endReached) {
      // The epoch was counted when its last batch borrowed from a new permutation; the next epoch
      // still starts from a fresh one (the reference reshuffles at every StopIteration).
      this.order = this.permutation();
      this.position = 0;
      this.endReached = false;
      return null;
    }
    if (this.position >= this.order.length) {
      this.newEpoch();
      return null;
    }
    const batch: Example[] = [];
    while (batch.length < this.batchSize) {
      if (this.position >= this.order.length) {
        this.newEpoch();
        this.endReached = true;
      }
      batch.push(this.examples[this.order[this.position++]!]!);
    }
    return batch;
  }

  /** A batch, never null (epochs roll over silently). */
  sample(): Example[] {
    return this.next() ?? this.next()!;
  }
}
