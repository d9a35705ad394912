/**
 * VeriBench rows and their task names, as the original names them: `filename` without `.py`, else
 * `task_<row index>`; the first row of a name wins. A task is found by its name, by `task_<i>` or
 * by a bare row index.
 */

/** One row of `allenanie/veribench_with_prompts` (the fields the suite reads). */
export interface VeribenchRow {
  readonly filename?: unknown;
  readonly code?: unknown;
  readonly user_query?: unknown;
  readonly category?: unknown;
}

/**
 * A row's task name. A blank filename (or one that is only `.py`) names the row by its index, as a
 * missing one does, so no task id ends in an empty name.
 */
export function taskNameOf(filename: unknown, index: number): string {
  if (typeof filename === "string" && filename !== "") {
    let name = filename.trim();
    if (name.endsWith(".py")) name = name.slice(0, -3);
    if (name !== "") return name;
  }
  return `task_${index}`;
}

/** Names in row order, without repeats, and where each name's (first) row is. */
export interface VeribenchIndex {
  readonly names: readonly string[];
  readonly rowOf: ReadonlyMap<string, number>;
  readonly rowCount: number;
}

export function indexNames(filenames: readonly unknown[]): VeribenchIndex {
  const rowOf = new Map<string, number>();
  filenames.forEach((filename, i) => {
    const name = taskNameOf(filename, i);
    if (!rowOf.has(name)) rowOf.set(name, i);
  });
  return { names: [...rowOf.keys()], rowOf, rowCount: filenames.length };
}

/** The row a task name stands for: its own name first, then `task_<i>` or `<i>` within the rows; else null. */
export function rowIndexOf(index: VeribenchIndex, name: string): number | null {
  const direct = index.rowOf.get(name);
  if (direct !== undefined) return direct;
  const match = /^task_(\d+)$/.exec(name) ?? /^(\d+)$/.exec(name);
  if (match === null) return null;
  const i = Number(match[1]);
  return i < index.rowCount ? i : null;
}
