/**
 * The run's closing table: one line per task × trainer × variant (× optimizer × model, each shown
 * only when the run has several), from the same aggregates as `aggregate.csv`: mean ± sample
 * standard deviation over seeds with n (`3/5` when some of the group's jobs have no score), the
 * initial mean, the best seed, and the 95 % bootstrap interval, or `n too small` under
 * `MIN_BOOTSTRAP_N` seeds. Figures are rounded for people (4 significant digits); the files keep
 * full precision.
 */
import type { AggregateRow } from "../events/projections/aggregates.js";
import { roundForPeople } from "./console-format.js";
import { textTable } from "./text-table.js";

/** Groups shown at most; the rest are in aggregate.csv. */
export const SHOWN_GROUPS = 40;

const num = (x: unknown): number | null => (typeof x === "number" && Number.isFinite(x) ? x : null);
const people = (x: unknown) => (num(x) === null ? "-" : roundForPeople(num(x)));

/** The table's lines (none when no job finished). */
export function scoresTable(aggregates: readonly AggregateRow[], max = SHOWN_GROUPS): string[] {
  if (aggregates.length === 0) return [];
  const several = (column: "resolved_optimizer" | "llm_model") => new Set(aggregates.map((a) => a[column] ?? "")).size > 1;
  const withOptimizer = several("resolved_optimizer");
  const withModel = several("llm_model");
  const header = ["TASK", "TRAINER", "VARIANT", ...(withOptimizer ? ["OPTIMIZER"] : []), ...(withModel ? ["MODEL"] : []), "N", "MEAN ± STD", "INITIAL", "BEST", "95% CI"];
  const rows = aggregates.slice(0, max).map((a) => {
    const n = Number(a.n);
    const spread = num(a.score_std) === null ? "" : ` ± ${people(a.score_std)}`;
    const interval = num(a.score_ci95_low) === null ? (a.ci95_note === "" ? "-" : String(a.ci95_note)) : `[${people(a.score_ci95_low)}, ${people(a.score_ci95_high)}]`;
    return [
      String(a.task_id),
      String(a.trainer_id),
      String(a.variant),
      ...(withOptimizer ? [String(a.resolved_optimizer ?? "")] : []),
      ...(withModel ? [String(a.llm_model ?? "")] : []),
      n === Number(a.jobs) ? String(n) : `${n}/${String(a.jobs)}`,
      n === 0 ? "-" : `${people(a.score_mean)}${spread}`,
      people(a.score_initial_mean),
      people(a.score_max),
      interval,
    ];
  });
  const first = header.indexOf("N");
  const right = new Set([first, first + 1, first + 2, first + 3]);
  const more = aggregates.length - rows.length;
  return [
    "Scores over seeds (final score_val of jobs that ended ok or budget_exhausted):",
    ...textTable(header, rows, right).split("\n").map((line) => `  ${line}`),
    ...(more > 0 ? [`  ... ${more} more group${more === 1 ? "" : "s"} in aggregate.csv`] : []),
  ];
}
