/** The runs under the runs dir, newest first, updated live. */
import type { RunsPayload, RunSummary } from "../../api-types.js";
import { follow, get } from "../api.js";
import { fill, h } from "../dom.js";
import { int, usd, when } from "../format.js";
import { progressBar, statusBadge } from "./progress.js";
import type { View } from "../view.js";

export const runHref = (relDir: string) => `#/run/${encodeURIComponent(relDir)}`;

function jobsText(jobs: Record<string, number>): string {
  return Object.entries(jobs)
    .filter(([status]) => status !== "matrix")
    .map(([status, n]) => `${n} ${status}`)
    .join(", ");
}

function row(run: RunSummary): HTMLElement {
  return h(
    "tr",
    { "data-run": run.rel_dir },
    h("td", null, h("a", { href: runHref(run.rel_dir), class: "mono" }, run.run_id), run.rel_dir.includes("/") ? h("div", { class: "dim small" }, run.rel_dir) : null),
    h("td", null, statusBadge(run)),
    h(
      "td",
      null,
      h("div", null, h("span", { "data-testid": "config-name" }, run.config_name ?? "—"), ` · ${run.mode}`),
      h("div", { class: "dim small" }, `${run.config_hash.slice(0, 12)} · ${run.tasks.join(", ")} × ${run.trainers.join(", ")}`),
    ),
    h("td", null, h("div", null, jobsText(run.jobs), ` (of ${run.jobs.matrix})`), run.status === "running" ? progressBar(run) : null),
    h("td", { class: "num" }, int(run.tokens.total_tokens)),
    // A stub run's $0 is the stub's, not a free real run.
    h("td", { class: "num" }, usd(run.cost_usd), run.mode === "stub" ? h("span", { class: "dim small", "data-testid": "stub-mode" }, " stub") : null),
    h("td", { class: "mono small" }, when(run.started_at)),
  );
}

export function runsListView(root: HTMLElement): View {
  const body = h("tbody");
  const warnings = h("div", { class: "warnings" });
  const empty = h("p", { class: "dim", hidden: true }, "No runs yet. Launch one from the Launch page or with trace-bench run.");
  const heading = h("h1", null, "Runs");
  const render = (payload: RunsPayload) => {
    heading.textContent = `Runs in ${payload.runs_dir}`;
    fill(body, [...payload.runs].reverse().map(row));
    empty.hidden = payload.runs.length > 0;
    fill(warnings, payload.warnings.map((w) => h("div", { class: "warning" }, w)));
  };
  fill(
    root,
    heading,
    warnings,
    h(
      "table",
      { class: "grid", "data-testid": "runs-table" },
      h("thead", null, h("tr", null, ["Run", "Status", "Config", "Jobs", "Tokens", "Cost", "Started (UTC)"].map((t) => h("th", null, t)))),
      body,
    ),
    empty,
  );
  void get<RunsPayload>("/api/runs").then(render);
  return { dispose: follow(null, { runs: render }) };
}
