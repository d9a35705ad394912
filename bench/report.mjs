// What a bench script reports: rows of {id, measurement, value, unit, digits, key?} or {id,
// measurement, unit, error}, a row a measurement, and notes. A row with a `key` is checked against
// the target of that key in docs/performance.md (its "## Targets" table), never against a figure
// in the script; a row may instead carry a `target` it computes ({op, value}: a relation between
// two of its own figures, not a threshold). On its own a script prints a table; with --json
// (run-all.mjs runs it so) one JSON line that run-all folds into its own table.
import { readFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const fmt = (x, digits) => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");

/** A script's own flags: `--json` (one line for run-all.mjs) and `--dir DIR` (its workspace, else a temp one). */
export function scriptArgs(argv = process.argv.slice(2)) {
  return { asJson: argv.includes("--json"), dir: argv.includes("--dir") ? resolve(argv[argv.indexOf("--dir") + 1]) : undefined };
}

/** Where the targets are kept: a table under this heading. */
export const TARGETS_FILE = join(dirname(fileURLToPath(import.meta.url)), "..", "docs", "performance.md");
export const TARGETS_HEADING = "## Targets";

/**
 * The targets table of `path`: key → {op, value, unit, row}. Its rows are
 * `| key | bench row | measurement | target |`, the target written `≤ 250 ms` or `≥ 1,000 jobs/s`.
 * Throws, naming the line, on a row it cannot read: a target that is not read is not checked.
 */
export function readTargets(path = TARGETS_FILE) {
  const lines = readFileSync(path, "utf8").split("\n");
  const start = lines.findIndex((l) => l.trim() === TARGETS_HEADING);
  if (start < 0) throw new Error(`${path}: no '${TARGETS_HEADING}' section; the bench's targets are kept there`);
  const targets = new Map();
  for (let i = start + 1; i < lines.length && !lines[i].startsWith("## "); i++) {
    const cells = lines[i].trim().split("|").slice(1, -1).map((c) => c.trim());
    if (cells.length !== 4 || cells[0] === "key" || /^-+$/.test(cells[0])) continue;
    const [key, row, , text] = cells;
    const match = /^(≤|≥|<=|>=)\s*(-?[\d,]*\.?\d+)\s*(.*)$/.exec(text);
    if (match === null) throw new Error(`${path}:${i + 1}: target '${text}' of '${key}': write it as '≤ 250 ms' or '≥ 1,000 jobs/s'`);
    if (targets.has(key)) throw new Error(`${path}:${i + 1}: key '${key}' is in the targets table twice`);
    targets.set(key, { op: match[1] === "≤" || match[1] === "<=" ? "<=" : ">=", value: Number(match[2].replaceAll(",", "")), unit: match[3].trim(), row });
  }
  return targets;
}

/**
 * The rows with their targets: a row's `key` looked up in `targets`. A key the table lacks, or
 * whose unit differs from the row's, leaves the row without a target and says why in `targetProblem`.
 */
export function withTargets(rows, targets = readTargets()) {
  return rows.map(({ targetProblem: _checkedBefore, ...r }) => {
    if (r.key === undefined || r.error !== undefined) return { target: null, ...r };
    const found = targets.get(r.key);
    if (found === undefined) return { ...r, target: null, targetProblem: `no target '${r.key}' in docs/performance.md (${TARGETS_HEADING})` };
    if (found.unit !== r.unit) return { ...r, target: null, targetProblem: `target '${r.key}' in docs/performance.md is in '${found.unit}', the row in '${r.unit}'` };
    return { ...r, target: { op: found.op, value: found.value } };
  });
}

/** What a row says of its target: ok, MISSED, info (no target), NO TARGET (its key not in the table) or ERROR. */
export function verdict(r) {
  if (r.error !== undefined) return "ERROR";
  if (r.targetProblem !== undefined) return "NO TARGET";
  if (r.target === null || r.target === undefined) return "info";
  return (r.target.op === "<=" ? r.value <= r.target.value : r.value >= r.target.value) ? "ok" : "MISSED";
}

/** The rows as the lines of a Markdown-style table, with each target's verdict. */
export function tableLines(rows) {
  const shown = rows.map((r) => {
    if (r.error !== undefined) return [r.id, r.measurement, "ERROR", r.unit, "", "ERROR"];
    return [r.id, r.measurement, fmt(r.value, r.digits), r.unit, r.target === null || r.target === undefined ? "—" : `${r.target.op === "<=" ? "≤" : "≥"} ${r.target.value} ${r.unit}`, verdict(r)];
  });
  const header = ["#", "Measurement", "Value", "Unit", "Target", "Status"];
  const widths = header.map((h, i) => Math.max(h.length, ...shown.map((c) => c[i].length)));
  const line = (c) => `| ${c.map((x, i) => (i === 2 ? x.padStart(widths[i]) : x.padEnd(widths[i]))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i === 2 ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`;
  return [line(header), rule, ...shown.map(line)];
}

/** One line: how many targets were met, missed, had none in the table, or could not be measured. */
export function targetsLine(rows, failures) {
  const verdicts = rows.map(verdict);
  const count = (v) => verdicts.filter((x) => x === v).length;
  const missed = count("MISSED");
  const targeted = count("ok") + missed;
  const untargeted = count("NO TARGET");
  return `Targets (docs/performance.md): ${targeted - missed}/${targeted} met${missed ? `, ${missed} MISSED` : ""}${untargeted ? `, ${untargeted} without a target in the table` : ""}${failures ? `, ${failures} ERROR` : ""}.`;
}

/** Prints the report (`asJson`: as one JSON line) and sets the exit code: 1 when a measurement failed. */
export function printReport({ title, rows: measured, notes, failures, tookS, asJson }) {
  const rows = withTargets(measured);
  if (asJson) {
    process.stdout.write(`${JSON.stringify({ rows, notes, failures, tookS })}\n`);
  } else {
    const cpuList = cpus();
    process.stdout.write(
      [
        "",
        title,
        `Machine: ${cpuList.length} CPUs (${availableParallelism()} available) ${cpuList[0]?.model?.trim() ?? "unknown"}; load average (1 min) ${fmt(loadavg()[0], 2)}; Node ${process.version}`,
        "",
        ...tableLines(rows),
        "",
        `${targetsLine(rows, failures)} Took ${fmt(tookS, 1)} s.`,
        ...notes.map((n) => `  ${n}`),
        ...rows.filter((r) => r.targetProblem !== undefined).map((r) => `  #${r.id}: ${r.targetProblem}`),
        ...rows.filter((r) => r.error !== undefined).map((r) => `  #${r.id} failed: ${r.error}`),
        "",
      ].join("\n"),
    );
  }
  process.exitCode = failures > 0 ? 1 : 0;
}
