/**
 * The dashboard's comparison of two arms of a run (`/api/compare?run=&by=&a=&b=`): what
 * `trace-bench compare RUN --by AXIS A B --json` prints, from the same functions, over the run's
 * finished jobs as the dashboard last read them.
 */
import type { ComparePayload } from "./api-types.js";
import { resultRow } from "../events/projections/results-table.js";
import { armsOfRun, COMPARE_AXIS_NAMES, compareArms, verdictLine, type CompareAxis } from "../events/projections/run-comparison.js";
import type { WatchedRun } from "./watched-run.js";

export class CompareQueryError extends Error {
  override readonly name = "CompareQueryError";
}

export function comparePayload(run: WatchedRun, by: string, valueA: string, valueB: string): ComparePayload {
  if (!(COMPARE_AXIS_NAMES as string[]).includes(by)) throw new CompareQueryError(`by must be one of ${COMPARE_AXIS_NAMES.join(", ")}, got '${by}'`);
  const state = run.run;
  const rows = state.orderedJobs().flatMap((job) => resultRow(state, job) ?? []);
  try {
    const arms = armsOfRun(rows, by as CompareAxis, valueA, valueB);
    const comparison = compareArms(arms.a, arms.b, arms.differing);
    return { by, a: valueA, b: valueB, differing: arms.differing, ...comparison, verdict: verdictLine(comparison.overall, valueA, valueB) };
  } catch (error) {
    throw new CompareQueryError(error instanceof Error ? error.message : String(error));
  }
}
