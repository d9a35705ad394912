// What a bench script reports: rows of {id, measurement, value, unit, digits, target: {op, value} |
// null} or {id, measurement, unit, error}, a row a measurement, and notes. On its own it prints a
// table; with --json (run-all.mjs runs it so) one JSON line that run-all folds into its own table.
import { availableParallelism, cpus, loadavg } from "node:os";

export const fmt = (x, digits) => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");

/** The rows as the lines of a Markdown-style table, with each target's verdict (ok, MISSED, info, ERROR). */
export function tableLines(rows) {
  const shown = rows.map((r) => {
    if (r.error !== undefined) return [r.id, r.measurement, "ERROR", r.unit, "", "ERROR"];
    const met = r.target === null ? null : r.target.op === "<=" ? r.value <= r.target.value : r.value >= r.target.value;
    return [r.id, r.measurement, fmt(r.value, r.digits), r.unit, r.target === null ? "—" : `${r.target.op === "<=" ? "≤" : "≥"} ${r.target.value} ${r.unit}`, r.target === null ? "info" : met ? "ok" : "MISSED"];
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
