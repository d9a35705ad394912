/**
 * POLCA's ε-net (the original's `filter_candidates`), on embeddings already computed. The net
 * starts as the memory (the candidates in memory and this iteration's exploration candidates);
 * then, until no new candidate is left:
 *   - each remaining new candidate's distance to the net is its least Euclidean (L2) distance to
 *     any member (+∞ when the net is empty);
 *   - candidates at distance ≤ ε are dropped for good (strictly farther than ε survives);
 *   - the survivor farthest from the net joins it (the first one on ties, as numpy's argmax).
 * The result is the candidates that joined, in the order they joined, with their distances at
 * that moment. (With ε = 0 POLCA does not call this: the original keeps every candidate as
 * proposed, before embedding anything.)
 */

export interface Embedded<T> {
  readonly item: T;
  readonly embedding: readonly number[];
}

export interface NetSelection<T> {
  /** The candidates kept, in the order they joined the net. */
  readonly added: T[];
  /** Each kept candidate's distance to the net just before it joined. */
  readonly distances: number[];
}

export function euclideanDistance(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new Error(`POLCA: embeddings of different lengths (${a.length} and ${b.length}) cannot be compared; use one embedding model`);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i]! - b[i]!) ** 2;
  return Math.sqrt(sum);
}

/** The least distance from `point` to any member of `net` (+∞ for an empty net). */
export function distanceToNet(net: readonly (readonly number[])[], point: readonly number[]): number {
  let least = Infinity;
  for (const member of net) least = Math.min(least, euclideanDistance(member, point));
  return least;
}

export function epsilonNetSelect<T>(memory: readonly (readonly number[])[], proposed: readonly Embedded<T>[], epsilon: number): NetSelection<T> {
  const net = [...memory];
  const added: T[] = [];
  const distances: number[] = [];
  let remaining = [...proposed];
  while (remaining.length > 0) {
    const survivors = remaining.map((c) => ({ c, d: distanceToNet(net, c.embedding) })).filter(({ d }) => d > epsilon);
    if (survivors.length === 0) break;
    let far = 0;
    for (let i = 1; i < survivors.length; i++) if (survivors[i]!.d > survivors[far]!.d) far = i;
    const chosen = survivors[far]!;
    net.push(chosen.c.embedding);
    added.push(chosen.c.item);
    distances.push(chosen.d);
    remaining = survivors.filter((_, i) => i !== far).map(({ c }) => c);
  }
  return { added, distances };
}
