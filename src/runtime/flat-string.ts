/**
 * A string built piece by piece (appended line by line, or a character at a time by a parser) is a
 * rope of V8 cons strings, every piece an object of its own, far bigger than its characters; the
 * first read of a character flattens it, in place, into one sequential string. A string that is
 * kept is flattened once, when it is complete, so that what stays in memory is the string and not
 * its rope (docs/performance.md: ledger, db1e093 for a config's quoted values, c942a0f for a job's log).
 */
export function flattened(text: string): string {
  text.charCodeAt(0);
  return text;
}
