/**
 * `join(dir, relative)` for a `relative` this program built from checked names (no `.` or `..`
 * segment, no leading or doubled slash): `join` normalizes the whole path character by character,
 * and a replay builds a path for each of a job's dozen files, where `normalize` showed in a cold
 * replay's profile (docs/performance.md, ledger).
 */
export function childPath(dir: string, relative: string): string {
  if (dir === "") return relative;
  return dir.endsWith("/") ? dir + relative : `${dir}/${relative}`;
}
