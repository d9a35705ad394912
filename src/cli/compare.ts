/**
 * `trace-bench compare RUN_A RUN_B` and `trace-bench compare RUN --by AXIS VALUE_A VALUE_B`: a
 * paired comparison of two arms on the jobs both ran (same task and seed, and the same value on
 * every other axis; see src/events/projections/run-comparison.ts), per task and overall: each
 * arm's mean, the mean difference A − B with its bootstrap interval, an exact sign test and a
 * paired permutation test, and which arm is ahead by how much. A run is a run directory, or a run
 * id under --runs-dir. Reads each log without the writer lock (a live run can be compared).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ParsedArgs, VerbSpec } from "./args.js";
import { UsageError } from "./args.js";
import { JSON_FLAG } from "./common-flags.js";
import { RunQueryError, withRunLog } from "./run-log.js";
import { textTable } from "./text-table.js";
import { EVENTS_DB } from "../events/log-database.js";
import { resultRows, type ResultRow } from "../events/projections/results-table.js";
import {
  armsOfRun,
  axisValue,
  COMPARE_AXIS_NAMES,
  compareArms,
  ComparisonError,
  differingAxes,
  formatFigure,
  formatP,
  verdictLine,
  type CompareAxis,
  type Comparison,
  type PairedFigures,
} from "../events/projections/run-comparison.js";
import { RunState } from "../events/run-state.js";

export const spec: VerbSpec = {
  name: "compare",
  summary:
    "Compare two runs (RUN_A RUN_B), or two arms of one run (RUN --by model|trainer|variant|optimizer VALUE_A VALUE_B), on the jobs both ran (same task and seed): per task and overall, each arm's mean, the paired difference A − B with a 95 % bootstrap interval, an exact sign test and a permutation test, and which arm wins by how much.",
  flags: {
    by: { type: "string", value: "AXIS", choices: COMPARE_AXIS_NAMES, description: "Compare two values of this axis within one run: RUN --by AXIS VALUE_A VALUE_B (a variant is its label, e.g. ps_steps=2, or default)." },
    "runs-dir": { type: "string", value: "DIR", aliases: ["output-dir"], description: "Where a run given by id is looked for (default: runs)." },
    json: { ...JSON_FLAG, description: "Print one JSON document: the arms, the axes paired on, per task and overall figures, and the verdict." },
  },
  positional: { name: "runs", description: "RUN_A RUN_B, or with --by: RUN VALUE_A VALUE_B. A run is a run directory or a run id under --runs-dir.", required: true, max: 3 },
};

interface Arm {
  readonly label: string;
  readonly run_dir: string;
  readonly run_id: string;
  readonly axis?: CompareAxis;
  readonly value?: string;
  readonly rows: readonly ResultRow[];
}

/** A run directory as given, else `<runs-dir>/<id>`; one line naming both when neither holds a log. */
function runDirOf(given: string, runsDir: string): string {
  if (existsSync(join(given, EVENTS_DB))) return given;
  const underRunsDir = join(runsDir, given);
  if (existsSync(join(underRunsDir, EVENTS_DB))) return underRunsDir;
  throw new UsageError({ verb: "compare", problem: `'${given}' is neither a run directory nor a run id under ${runsDir} (no ${EVENTS_DB}); pass runs/<run_id>, or the id with --runs-dir` });
}

function readRun(runDir: string): { runId: string; rows: ResultRow[] } {
  return withRunLog("compare", runDir, ({ events }) => {
    const state = RunState.fold(events);
    return { runId: state.runId, rows: resultRows(state) };
  });
}

const figureCells = (f: PairedFigures) => [
  String(f.pairs),
  formatFigure(f.mean_a),
  formatFigure(f.mean_b),
  formatFigure(f.mean_diff),
  f.ci95 === null ? f.ci95_note || "-" : `[${formatFigure(f.ci95[0])}, ${formatFigure(f.ci95[1])}]`,
  f.pairs === 0 ? "-" : formatP(f.sign_test.p),
  f.pairs === 0 ? "-" : formatP(f.permutation.p),
  f.ahead,
];

function armText(arm: Arm): string {
  return `${arm.axis !== undefined ? `${arm.axis}=${arm.value} in ` : ""}${arm.run_dir} (run ${arm.run_id})`;
}

function text(a: Arm, b: Arm, differing: readonly CompareAxis[], comparison: Comparison): string {
  const values = (arm: Arm, axis: CompareAxis) => [...new Set(arm.rows.map((r) => axisValue(r, axis)))].join(", ");
  const differ =
    differing.length === 0 ? "The arms differ in no axis (trainer, variant, optimizer, model)." : `The arms differ in ${differing.map((axis) => `${axis} (A: ${values(a, axis)}; B: ${values(b, axis)})`).join(", ")}.`;
  const header = ["TASK", "PAIRS", "MEAN A", "MEAN B", "A − B", "95% CI", "SIGN p", "PERM p", "AHEAD"];
  const rows = [...comparison.tasks.map((t) => [t.task_id, ...figureCells(t)]), ["overall", ...figureCells(comparison.overall)]];
  const overall = comparison.overall;
  const method = overall.permutation.method === "exact" ? "exact over all sign flips" : `${overall.permutation.assignments} seeded random sign flips`;
  return [
    `A: ${armText(a)}`,
    `B: ${armText(b)}`,
    differ,
    `Paired on ${comparison.paired_on.join(" × ")}: ${overall.pairs} pairs; left out (no partner, or no score in ok/budget_exhausted): ${comparison.unpaired.a} jobs of A, ${comparison.unpaired.b} of B.`,
    "",
    textTable(header, rows, new Set([1, 2, 3, 4, 6, 7])),
    "",
    verdictLine(overall, "A", "B"),
    `A − B: scores of A minus B, pair by pair (higher scores are better). 95% CI: bootstrap of the mean difference (10,000 seeded resamples; from 5 pairs). Permutation test (overall): ${method}.`,
  ].join("\n");
}

function json(a: Arm, b: Arm, differing: readonly CompareAxis[], comparison: Comparison): string {
  const arm = ({ rows: _rows, label: _label, ...rest }: Arm) => rest;
  return JSON.stringify({ a: arm(a), b: arm(b), differing, ...comparison, verdict: verdictLine(comparison.overall, "A", "B") }, null, 2);
}

export async function execute(args: ParsedArgs): Promise<number> {
  const given = args.positionals ?? (args.positional !== undefined ? [args.positional] : []);
  const runsDir = (args.flags["runs-dir"] as string | undefined) ?? "runs";
  const by = args.flags.by as CompareAxis | undefined;
  let a: Arm;
  let b: Arm;
  let differing: CompareAxis[];
  if (by !== undefined) {
    if (given.length !== 3) throw new UsageError({ verb: "compare", problem: `--by ${by} takes a run and two values: compare RUN --by ${by} VALUE_A VALUE_B` });
    const [run, valueA, valueB] = given as [string, string, string];
    const dir = runDirOf(run, runsDir);
    const { runId, rows } = readRun(dir);
    let arms;
    try {
      arms = armsOfRun(rows, by, valueA, valueB);
    } catch (error) {
      if (error instanceof ComparisonError) throw new UsageError({ verb: "compare", problem: error.message.replace("in this run", `in ${dir}`) });
      throw error;
    }
    a = { label: "A", run_dir: dir, run_id: runId, axis: by, value: valueA, rows: arms.a };
    b = { label: "B", run_dir: dir, run_id: runId, axis: by, value: valueB, rows: arms.b };
    differing = [...arms.differing];
  } else {
    if (given.length !== 2) throw new UsageError({ verb: "compare", problem: `compare takes two runs (RUN_A RUN_B), or one run with --by AXIS VALUE_A VALUE_B; got ${given.length} argument${given.length === 1 ? "" : "s"}` });
    const [dirA, dirB] = [runDirOf(given[0]!, runsDir), runDirOf(given[1]!, runsDir)];
    const runA = readRun(dirA);
    const runB = readRun(dirB);
    a = { label: "A", run_dir: dirA, run_id: runA.runId, rows: runA.rows };
    b = { label: "B", run_dir: dirB, run_id: runB.runId, rows: runB.rows };
    differing = differingAxes(a.rows, b.rows);
  }
  let comparison: Comparison;
  try {
    comparison = compareArms(a.rows, b.rows, differing);
  } catch (error) {
    if (error instanceof ComparisonError) throw new RunQueryError({ problem: `compare: ${error.message}` });
    throw error;
  }
  if (comparison.overall.pairs === 0) {
    throw new RunQueryError({ problem: `compare: the arms share no scored job (same task and seed${differing.length < COMPARE_AXIS_NAMES.length ? `, same ${COMPARE_AXIS_NAMES.filter((x) => !differing.includes(x)).join(", ")}` : ""}); nothing to compare` });
  }
  process.stdout.write(`${args.flags.json === true ? json(a, b, differing, comparison) : text(a, b, differing, comparison)}\n`);
  return 0;
}
