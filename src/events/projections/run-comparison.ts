/**
 * A paired comparison of two arms (two runs, or two values of one axis of a run) on the jobs both
 * ran: a job of arm A is paired with the job of arm B that has the same task and seed and the same
 * value on every other axis both arms share (trainer, variant, optimizer, model, minus the axes
 * the arms differ in). A pair counts when both jobs ended ok or budget_exhausted with a final
 * score (the jobs the aggregates count). Per task and overall: the pairs, each arm's mean, the
 * mean difference A − B with its 95 % bootstrap interval (from `MIN_BOOTSTRAP_N` pairs, the same
 * seeded bootstrap as aggregate.csv), an exact sign test and a paired permutation test, and which
 * arm is ahead by how much. Pure: the same rows always give the same comparison.
 */
import { bootstrapCi95, CI_NOTE_N_TOO_SMALL, mean, MIN_BOOTSTRAP_N, SCORED_STATUSES, tidy } from "./aggregates.js";
import { permutationTest, signTest, type PermutationTest, type SignTest } from "./paired-tests.js";
import type { ResultRow } from "./results-table.js";

/** The axes an arm can be told apart by, as results.csv names their columns. */
export const COMPARE_AXES = { trainer: "trainer_id", variant: "variant", optimizer: "resolved_optimizer", model: "llm_model" } as const;
export type CompareAxis = keyof typeof COMPARE_AXES;
export const COMPARE_AXIS_NAMES = Object.keys(COMPARE_AXES) as CompareAxis[];

/** A p below this is called significant in the verdict. */
export const SIGNIFICANCE = 0.05;

export const axisValue = (row: ResultRow, axis: CompareAxis): string => String(row[COMPARE_AXES[axis]] ?? "");

export interface PairedFigures {
  readonly pairs: number;
  readonly mean_a: number | null;
  readonly mean_b: number | null;
  /** Mean of A − B over the pairs. */
  readonly mean_diff: number | null;
  readonly ci95: readonly [number, number] | null;
  /** `n too small` below MIN_BOOTSTRAP_N pairs, else "". */
  readonly ci95_note: string;
  /** p written with 15 significant digits. */
  readonly sign_test: SignTest;
  readonly permutation: PermutationTest;
  /** The arm whose mean is higher (higher scores are better), or `tie`. */
  readonly ahead: "A" | "B" | "tie";
  /** How far ahead: |mean A − mean B|. */
  readonly margin: number | null;
}

export interface TaskComparison extends PairedFigures {
  readonly task_id: string;
}

export interface Comparison {
  /** The axes a pair agrees on besides task and seed. */
  readonly paired_on: readonly string[];
  readonly tasks: readonly TaskComparison[];
  readonly overall: PairedFigures;
  /** Jobs of each arm left out: no partner in the other arm, or one of the two without a score. */
  readonly unpaired: { readonly a: number; readonly b: number };
}

export class ComparisonError extends Error {
  override readonly name = "ComparisonError";
}

function figures(pairs: readonly (readonly [number, number])[]): PairedFigures {
  const diffs = pairs.map(([a, b]) => a - b);
  const meanA = tidy(mean(pairs.map(([a]) => a)));
  const meanB = tidy(mean(pairs.map(([, b]) => b)));
  const meanDiff = tidy(mean(diffs));
  const ci = diffs.length >= MIN_BOOTSTRAP_N ? bootstrapCi95(diffs) : null;
  return {
    pairs: pairs.length,
    mean_a: meanA,
    mean_b: meanB,
    mean_diff: meanDiff,
    ci95: ci === null ? null : [tidy(ci[0])!, tidy(ci[1])!],
    ci95_note: diffs.length < MIN_BOOTSTRAP_N ? CI_NOTE_N_TOO_SMALL : "",
    sign_test: tidyP(signTest(diffs)),
    permutation: tidyP(permutationTest(diffs)),
    ahead: meanDiff === null || meanDiff === 0 ? "tie" : meanDiff > 0 ? "A" : "B",
    margin: meanDiff === null ? null : Math.abs(meanDiff),
  };
}

const tidyP = <T extends { readonly p: number }>(test: T): T => ({ ...test, p: tidy(test.p)! });

const scoreOf = (row: ResultRow): number | null =>
  SCORED_STATUSES.has(String(row.status)) && typeof row.score_val === "number" && Number.isFinite(row.score_val) ? row.score_val : null;

/**
 * Pairs `a` with `b`. `differing` are the axes the arms differ in (left out of the pairing key);
 * every other axis must identify one job per task and seed in each arm.
 */
export function compareArms(a: readonly ResultRow[], b: readonly ResultRow[], differing: readonly CompareAxis[]): Comparison {
  const shared = COMPARE_AXIS_NAMES.filter((axis) => !differing.includes(axis));
  const keyOf = (row: ResultRow) => JSON.stringify([row.task_id, row.seed, ...shared.map((axis) => axisValue(row, axis))]);
  const index = (rows: readonly ResultRow[], arm: string) => {
    const byKey = new Map<string, ResultRow>();
    for (const row of rows) {
      const key = keyOf(row);
      if (byKey.has(key)) {
        const which = differing.map((axis) => `${axis} (${[...new Set(rows.filter((r) => keyOf(r) === key).map((r) => axisValue(r, axis)))].join(", ")})`).join(", ");
        throw new ComparisonError(`arm ${arm} has several jobs for task ${String(row.task_id)}, seed ${String(row.seed)}${which ? ` differing in ${which}` : ""}; compare runs that differ in one value of an axis, or two arms of one run with --by`);
      }
      byKey.set(key, row);
    }
    return byKey;
  };
  const rowsA = index(a, "A");
  const rowsB = index(b, "B");
  const byTask = new Map<string, [number, number][]>();
  let pairedA = 0;
  for (const [key, rowA] of rowsA) {
    const rowB = rowsB.get(key);
    const scoreA = scoreOf(rowA);
    const scoreB = rowB === undefined ? null : scoreOf(rowB);
    if (scoreA === null || scoreB === null) continue;
    pairedA++;
    const task = String(rowA.task_id);
    let list = byTask.get(task);
    if (list === undefined) byTask.set(task, (list = []));
    list.push([scoreA, scoreB]);
  }
  const tasks = [...byTask.keys()].sort().map((task_id) => ({ task_id, ...figures(byTask.get(task_id)!) }));
  return {
    paired_on: ["task", "seed", ...shared],
    tasks,
    overall: figures([...byTask.keys()].sort().flatMap((task) => byTask.get(task)!)),
    unpaired: { a: rowsA.size - pairedA, b: rowsB.size - pairedA },
  };
}

/**
 * The axes on which two runs share no value (what a two-run comparison leaves out of the pairing
 * key: runs of model m1 and of model m2). An axis whose values overlap stays in the key, so only
 * the shared values pair (a sweep of ps_steps 1 and 3 against a run of ps_steps 3 alone).
 */
export function differingAxes(a: readonly ResultRow[], b: readonly ResultRow[]): CompareAxis[] {
  return COMPARE_AXIS_NAMES.filter((axis) => {
    const inA = new Set(a.map((r) => axisValue(r, axis)));
    return !b.some((r) => inA.has(axisValue(r, axis)));
  });
}

/** Two arms of one run: its jobs whose `by` axis is `valueA`, and `valueB`, and the axes left out of the pairing key. */
export interface ArmsOfRun {
  readonly a: readonly ResultRow[];
  readonly b: readonly ResultRow[];
  readonly differing: readonly CompareAxis[];
}

/**
 * Splits a run's rows into two arms by one axis. Other axes the two arms share no value on are left
 * out of the pairing key too (each trainer has variants of its own). A value no finished job has,
 * or the same value twice, is a `ComparisonError` naming the values there are.
 */
export function armsOfRun(rows: readonly ResultRow[], by: CompareAxis, valueA: string, valueB: string): ArmsOfRun {
  const known = [...new Set(rows.map((r) => axisValue(r, by)))];
  for (const value of [valueA, valueB]) {
    if (!known.includes(value)) throw new ComparisonError(`${by} '${value}' has no finished job in this run; its ${by} values: ${known.join(", ") || "none"}`);
  }
  if (valueA === valueB) throw new ComparisonError(`--by ${by}: the two values are the same ('${valueA}'); name two different ones`);
  const a = rows.filter((r) => axisValue(r, by) === valueA);
  const b = rows.filter((r) => axisValue(r, by) === valueB);
  return { a, b, differing: [by, ...differingAxes(a, b).filter((axis) => axis !== by)] };
}

/** One line saying who is ahead, by how much, and whether the permutation test calls it. */
export function verdictLine(f: PairedFigures, nameA: string, nameB: string): string {
  if (f.pairs === 0) return "No pair has a score in both arms: nothing to compare.";
  const p = `permutation p = ${formatP(f.permutation.p)}, sign test p = ${formatP(f.sign_test.p)}`;
  if (f.ahead === "tie") return `Tie: the arms' means are equal over ${f.pairs} pairs (${p}).`;
  const winner = f.ahead === "A" ? nameA : nameB;
  const how = f.permutation.p < SIGNIFICANCE ? "wins" : "is ahead, not significantly (p ≥ 0.05),";
  return `${winner} ${how} by ${formatFigure(f.margin)} in mean score over ${f.pairs} pairs (${p}).`;
}

/** A p-value as people read it: 3 significant digits, small ones in exponent form. */
export function formatP(p: number): string {
  return p < 1e-4 ? p.toExponential(2) : String(Number(p.toPrecision(3)));
}

/** A figure with 4 significant digits. */
export function formatFigure(x: number | null): string {
  return x === null ? "-" : String(Number(x.toPrecision(4)));
}
