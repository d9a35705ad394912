/**
 * How alike two texts are, as Python's `difflib.SequenceMatcher(None, a, b).ratio()` measures it
 * (OptoPrimeMulti's `majority` selection clusters candidate replies by it): 2·M / (|a| + |b|),
 * where M counts the characters of the matching blocks found by recursively taking the longest
 * common block (earliest in `a`, then in `b`, on ties) left and right of it. Like difflib's
 * default `autojunk`, a character that occurs more than 1% of the time in a `b` of 200 or more
 * characters is left out of the search, though found blocks extend over it.
 */

interface Block {
  readonly i: number;
  readonly j: number;
  readonly size: number;
}

/** Where each character of `b` occurs, without the "popular" characters autojunk drops. */
function indexOfB(b: readonly string[]): Map<string, number[]> {
  const positions = new Map<string, number[]>();
  for (let j = 0; j < b.length; j++) {
    const list = positions.get(b[j]!);
    if (list === undefined) positions.set(b[j]!, [j]);
    else list.push(j);
  }
  if (b.length >= 200) {
    const limit = Math.floor(b.length / 100) + 1;
    for (const [char, list] of [...positions]) if (list.length > limit) positions.delete(char);
  }
  return positions;
}

function longestMatch(a: readonly string[], b: readonly string[], index: ReturnType<typeof indexOfB>, alo: number, ahi: number, blo: number, bhi: number): Block {
  let bestI = alo;
  let bestJ = blo;
  let bestSize = 0;
  // lengths[j]: length of the match ending at a[i-1], b[j].
  let lengths = new Map<number, number>();
  for (let i = alo; i < ahi; i++) {
    const next = new Map<number, number>();
    for (const j of index.get(a[i]!) ?? []) {
      if (j < blo) continue;
      if (j >= bhi) break;
      const k = (lengths.get(j - 1) ?? 0) + 1;
      next.set(j, k);
      if (k > bestSize) {
        bestI = i - k + 1;
        bestJ = j - k + 1;
        bestSize = k;
      }
    }
    lengths = next;
  }
  // Popular characters never start a match, but (difflib's junk set being empty) a match grows over any equal characters.
  while (bestI > alo && bestJ > blo && a[bestI - 1] === b[bestJ - 1]) {
    bestI--;
    bestJ--;
    bestSize++;
  }
  while (bestI + bestSize < ahi && bestJ + bestSize < bhi && a[bestI + bestSize] === b[bestJ + bestSize]) bestSize++;
  return { i: bestI, j: bestJ, size: bestSize };
}

/** The total size of the matching blocks of `a` and `b`. */
function matchingCharacters(a: readonly string[], b: readonly string[]): number {
  const index = indexOfB(b);
  let total = 0;
  const queue: [number, number, number, number][] = [[0, a.length, 0, b.length]];
  while (queue.length > 0) {
    const [alo, ahi, blo, bhi] = queue.pop()!;
    const { i, j, size } = longestMatch(a, b, index, alo, ahi, blo, bhi);
    if (size === 0) continue;
    total += size;
    if (alo < i && blo < j) queue.push([alo, i, blo, j]);
    if (i + size < ahi && j + size < bhi) queue.push([i + size, ahi, j + size, bhi]);
  }
  return total;
}

/** difflib's `ratio()`: 1 for two empty texts, else 2·matches / total length. */
export function similarityRatio(a: string, b: string): number {
  // Python indexes by code point.
  const [ca, cb] = [Array.from(a), Array.from(b)];
  const length = ca.length + cb.length;
  return length === 0 ? 1 : (2 * matchingCharacters(ca, cb)) / length;
}
