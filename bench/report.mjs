// What a bench script reports: rows of {id, measurement, value, unit, digits, target: {op, value} |
// null} or {id, measurement, unit, error}, a row a measurement, and notes. On its own it prints a
// table; with --json (run-all.mjs runs it so) one JSON line that run-all folds into its own table.
import { availableParallelism, cpus, loadavg } from "node:os";
import { resolve } from "node:path";

export const fmt = (x, digits) => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");

/** A script's own flags: `--json` (one line for run-all.mjs) and `--dir DIR` (its workspace, else a temp one). */
export function scriptArgs(argv = process.argv.slice(2)) {
  return { asJson: argv.includes("--json"), dir: argv.includes("--dir") ? resolve(argv[argv.indexOf("--dir") + 1]) : undefined };
}

/** What a row says of its target: ok, MISSED, info (no target) or ERROR. */
export function verdict(r) {
  if (r.error !== undefined) return "ERROR";
  if (r.target === null) return "info";
  return (r.target.op === "<=" ? r.value <= r.target.value : r.value >= r.target.value) ? "ok" : "MISSED";
}

/** The rows as the lines of a Markdown-style table, with each target's verdict. */
export function tableLines(rows) {
  const shown = rows.map((r) => {
    if (r.error !== undefined) return [r.id, r.measurement, "ERROR", r.unit, "", "ERROR"];
    return [r.id, r.measurement, fmt(r.value, r.digits), r.unit, r.target === null ? "—" : `${r.target.op === "<=" ? "≤" : "≥"} ${r.target.value} ${r.unit}`, verdict(r)];
  });
  const header = ["#", "Measurement", "Value", "Unit", "Target", "Status"];
  const widths = header.map((h, i) => Math.max(h.length, ...shown.map((c) => c[i].length)));
  const line = (c) => `| ${c.map((x, i) => (i === 2 ? x.padStart(widths[i]) : x.padEnd(widths[i]))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i === 2 ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`;
  return [line(header), rule, ...shown.map(line)];
}

/** Prints the report (`asJson`: as one JSON line) and sets the exit code: 1 when a measurement failed. */
export function printReport({ title, rows, notes, failures, tookS, asJson }) {
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
        `Took ${fmt(tookS, 1)} s.`,
        ...notes.map((n) => `  ${n}`),
        ...rows.filter((r) => r.error !== undefined).map((r) => `  #${r.id} failed: ${r.error}`),
        "",
      ].join("\n"),
    );
  }
  process.exitCode = failures > 0 ? 1 : 0;
}
