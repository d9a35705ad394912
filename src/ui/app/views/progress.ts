/** A run's progress bar and its one-line status: done / failed / running of total, elapsed, ETA. */
import type { Progress, RunSummary } from "../../api-types.js";
import { h } from "../dom.js";
import { duration } from "../format.js";

export function progressText(p: Progress, status: RunSummary["status"]): string {
  const eta = status === "running" ? `, ETA ${duration(p.eta_seconds)}` : "";
  return `${p.done}/${p.total} done (${p.percent} %), ${p.failed} failed, ${p.running} running · ${duration(p.elapsed_seconds)} elapsed${eta}`;
}

export function progressBar(run: RunSummary): HTMLElement {
  const p = run.progress;
  return h(
    "div",
    { class: `progress ${run.status}`, role: "progressbar", "aria-valuemin": 0, "aria-valuemax": 100, "aria-valuenow": p.percent, "data-testid": "progress", "data-percent": p.percent },
    h("div", { class: "bar" }, h("div", { class: "fill", style: `width: ${p.percent}%` }), h("div", { class: "fail", style: `width: ${p.total === 0 ? 0 : (100 * p.failed) / p.total}%` })),
    h("span", { class: "text" }, progressText(p, run.status)),
  );
}

export function statusBadge(run: Pick<RunSummary, "status" | "crashed">): HTMLElement {
  return h("span", { class: `badge ${run.status}${run.crashed ? " crashed" : ""}`, "data-testid": "run-status" }, run.status + (run.crashed ? " (crashed)" : ""));
}
