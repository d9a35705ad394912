/**
 * "Did you mean": the known name closest to a misspelled one (task ids, trainer ids, config keys,
 * CLI flags), by edit distance, when it is close enough to be a likely typo.
 */

/** Levenshtein distance, with a swap of two neighbouring characters counted as one edit. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate nearest to `name` (case and `-`/`_` ignored), or undefined when none is within
 * a quarter of the name's length (at least 1, at most 3 edits). Ties go to the earlier candidate.
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/-/g, "_");
  const target = norm(name);
  if (target.length > 200) return undefined;
  const limit = Math.min(3, Math.max(1, Math.floor(target.length / 4)));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === name || candidate.length > 200) continue;
    const distance = editDistance(target, norm(candidate));
    if (distance < bestDistance && distance <= limit) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** `; did you mean 'x'?` (formatted by `quote`), or "" when nothing is close. */
export function didYouMean(name: string, candidates: Iterable<string>, quote: (s: string) => string = (s) => `'${s}'`): string {
  const best = closestName(name, candidates);
  return best === undefined ? "" : `; did you mean ${quote(best)}?`;
}
