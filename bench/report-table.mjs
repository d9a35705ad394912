// The table a bench script prints on its own: rows of {id, measurement, value, unit, digits,
// target: {op, value} | null} or {id, measurement, unit, error}, a row a measurement.

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
