/**
 * Keeps config reports a few lines long when one mistake repeats (100,000 unknown keys, a list of
 * 50,000 bad entries): the first few findings of each kind are printed as usual, the rest of that
 * kind become one line that names the first few of them and counts the others.
 */

/** Findings of one kind printed in full before the rest are summed up. */
export const SHOWN_PER_KIND = 3;
/** Names listed in a summary or a list of keys before "and N more". */
export const NAMES_SHOWN = 5;

const count = (n: number): string => n.toLocaleString("en-US");

/** `a, b, c and 12,345 more` (at most `shown` names). */
export function listNames(names: readonly string[], shown = NAMES_SHOWN): string {
  if (names.length <= shown) return names.join(", ");
  return `${names.slice(0, shown).join(", ")} and ${count(names.length - shown)} more`;
}

/**
 * One line per finding, except that after `SHOWN_PER_KIND` findings of a kind the others of that
 * kind become a single `summarize(rest)` line, placed where the first of them was. Lines are
 * rendered only for what is printed (rendering may look up source lines).
 */
export function compactByKind<T>(
  findings: readonly T[],
  kindOf: (finding: T) => string,
  render: (finding: T) => string,
  summarize: (rest: readonly T[]) => string,
): string[] {
  const kinds = findings.map(kindOf);
  const total = new Map<string, number>();
  for (const kind of kinds) total.set(kind, (total.get(kind) ?? 0) + 1);
  const seen = new Map<string, number>();
  const rest = new Map<string, T[]>();
  const out: Array<string | { readonly summaryOf: string }> = [];
  findings.forEach((finding, i) => {
    const kind = kinds[i]!;
    const n = seen.get(kind) ?? 0;
    seen.set(kind, n + 1);
    // A summary of a single finding would be no shorter than the finding itself.
    if (total.get(kind)! <= SHOWN_PER_KIND + 1 || n < SHOWN_PER_KIND) out.push(render(finding));
    else {
      if (n === SHOWN_PER_KIND) {
        out.push({ summaryOf: kind });
        rest.set(kind, []);
      }
      rest.get(kind)!.push(finding);
    }
  });
  return out.map((line) => (typeof line === "string" ? line : summarize(rest.get(line.summaryOf)!)));
}
