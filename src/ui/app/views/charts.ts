/**
 * The run's charts (Chart.js, canvas): mean score over seeds per task and arm, score per iteration
 * of chosen jobs, score against tokens (what each arm buys per token), and the spread of scores
 * over seeds per task × arm, and, for a run whose guides name two metrics or more, its jobs and
 * candidates on the first two metrics with their Pareto front (src/ui/metric-scatter.ts). An arm is a trainer with its params variant (`PrioritySearch ·
 * ps_steps=2`; a trainer without params is its name alone), so variants are never merged. Scores
 * are score_val of jobs that ended ok.
 */
import { Chart, registerables, type ChartConfiguration } from "chart.js";
import type { JobState, MetricPoint, MetricScatter, RunPayload } from "../../api-types.js";
import { fill, h } from "../dom.js";
import { score } from "../format.js";

Chart.register(...registerables);
Chart.defaults.animation = false;
Chart.defaults.font.family = "system-ui, sans-serif";

const PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777", "#4b5563", "#65a30d"];
const colorOf = (i: number) => PALETTE[i % PALETTE.length]!;

type Row = Readonly<Record<string, unknown>>;
const okRows = (payload: RunPayload) => payload.rows.filter((r) => r.status === "ok" && typeof r.score_val === "number");
const unique = (values: readonly string[]) => [...new Set(values)].sort();

/** A trainer with its params variant, as the charts name it. */
export const armOf = (r: Row | JobState) => (r.variant === undefined || r.variant === "default" || r.variant === "" ? String(r.trainer_id) : `${String(r.trainer_id)} · ${String(r.variant)}`);

function meanByTaskArm(payload: RunPayload): ChartConfiguration {
  const rows = okRows(payload);
  const tasks = unique(rows.map((r) => String(r.task_id)));
  const arms = unique(rows.map(armOf));
  const meanOf = (task: string, arm: string) => {
    const scores = rows.filter((r) => r.task_id === task && armOf(r) === arm).map((r) => r.score_val as number);
    return scores.length === 0 ? null : scores.reduce((a, b) => a + b, 0) / scores.length;
  };
  return {
    type: "bar",
    data: { labels: tasks, datasets: arms.map((a, i) => ({ label: a, data: tasks.map((task) => meanOf(task, a)), backgroundColor: colorOf(i) })) },
    options: { responsive: true, maintainAspectRatio: false, plugins: { title: { display: true, text: "Mean score_val over seeds per task and trainer (variant)" } }, scales: { y: { title: { display: true, text: "mean score_val" } } } },
  };
}

function perIteration(payload: RunPayload, jobs: readonly string[]): ChartConfiguration {
  const label = (id: string) => {
    const job = payload.jobs.find((j) => j.job_id === id);
    return job === undefined ? id : `${job.task_id} × ${armOf(job)} s${job.seed} (${id.slice(0, 6)})`;
  };
  return {
    type: "line",
    data: {
      datasets: jobs.flatMap((id, i) => [
        { label: label(id), data: (payload.iterations[id] ?? []).map((p) => ({ x: p.step, y: p.score })), borderColor: colorOf(i), backgroundColor: colorOf(i), spanGaps: true },
        { label: `${label(id)} best`, data: (payload.iterations[id] ?? []).map((p) => ({ x: p.step, y: p.best_score })), borderColor: colorOf(i), borderDash: [5, 4], pointRadius: 0, spanGaps: true },
      ]),
    },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      parsing: false,
      plugins: {
        title: { display: true, text: "Score per iteration (dashed: best so far)" },
        legend: { position: "bottom", labels: { boxWidth: 12, filter: (item) => !item.text.endsWith(" best") } },
      },
      scales: { x: { type: "linear", title: { display: true, text: "step" }, ticks: { precision: 0 } }, y: { title: { display: true, text: "score" } } },
    },
  };
}

function scoreVsTokens(payload: RunPayload): ChartConfiguration {
  const rows = okRows(payload);
  const arms = unique(rows.map(armOf));
  return {
    type: "scatter",
    data: {
      datasets: arms.map((a, i) => ({
        label: a,
        data: rows.filter((r) => armOf(r) === a).map((r) => ({ x: Number(r.total_tokens), y: r.score_val as number })),
        backgroundColor: colorOf(i),
        pointRadius: 5,
      })),
    },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      plugins: { title: { display: true, text: "Score against tokens (one point per job)" } },
      scales: { x: { title: { display: true, text: "total tokens" }, beginAtZero: true }, y: { title: { display: true, text: "score_val" } } },
    },
  };
}

function spreadOverSeeds(payload: RunPayload): ChartConfiguration {
  const rows = okRows(payload);
  const groups = new Map<string, Row[]>();
  for (const r of rows) {
    const key = `${r.task_id} × ${armOf(r)}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const labels = [...groups.keys()].sort();
  const scoresOf = (label: string) => groups.get(label)!.map((r) => r.score_val as number);
  return {
    type: "bar",
    data: {
      labels,
      datasets: [
        { type: "bar", label: "min – max over seeds", grouped: false, data: labels.map((l) => [Math.min(...scoresOf(l)), Math.max(...scoresOf(l))] as [number, number]), backgroundColor: "rgba(37, 99, 235, 0.25)", borderColor: "#2563eb", borderWidth: 1, minBarLength: 3 },
        {
          type: "scatter",
          label: "one seed",
          data: labels.flatMap((l) => scoresOf(l).map((y) => ({ x: l, y }))),
          backgroundColor: "#dc2626",
          pointRadius: 4,
        },
        { type: "scatter", label: "mean", data: labels.map((l) => ({ x: l, y: scoresOf(l).reduce((a, b) => a + b, 0) / scoresOf(l).length })), backgroundColor: "#111827", pointStyle: "line", pointRadius: 12, borderWidth: 3, borderColor: "#111827" },
      ],
    } as ChartConfiguration["data"],
    options: {
      responsive: true,
      maintainAspectRatio: false,
      plugins: { title: { display: true, text: "Spread of score_val over seeds" }, tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${Array.isArray(c.raw) ? (c.raw as number[]).map(score).join(" – ") : score((c.raw as { y: number }).y)}` } } },
      scales: { x: { type: "category" }, y: { title: { display: true, text: "score_val" } } },
    },
  };
}

/** The range of `values`, widened by a tenth on each side (a single value by one unit). */
function paddedRange(values: readonly number[]): { min: number; max: number } {
  const [lo, hi] = [Math.min(...values), Math.max(...values)];
  const pad = hi > lo ? (hi - lo) / 10 : Math.max(1, Math.abs(lo) / 10);
  return { min: lo - pad, max: hi + pad };
}

/**
 * Jobs (their best evaluation) and candidates on two metrics, the Pareto front drawn as a line
 * through its points. The axes fit the jobs and the front: a task's failure value (1e6 on each
 * loss for an invalid candidate) would otherwise squeeze every other point into a corner; the
 * title counts the candidates left outside.
 */
function metricScatterChart(scatter: MetricScatter): ChartConfiguration {
  const axis = (metric: string, minimize: boolean) => `${metric} (${minimize ? "lower" : "higher"} is better)`;
  const xy = (p: MetricPoint) => ({ x: p.x, y: p.y, job_id: p.job_id, candidate: p.candidate });
  const framed = [...scatter.points.filter((p) => p.kind === "job"), ...scatter.front];
  const [xRange, yRange] = [paddedRange(framed.map((p) => p.x)), paddedRange(framed.map((p) => p.y))];
  const outside = scatter.points.filter((p) => p.x < xRange.min || p.x > xRange.max || p.y < yRange.min || p.y > yRange.max).length;
  const title = [
    `${scatter.y} against ${scatter.x}: jobs and candidates, Pareto front in red`,
    ...(scatter.metrics.length > 2 ? [`the first two of ${scatter.metrics.length} metrics`] : []),
    ...(outside > 0 ? [`${outside} candidate${outside === 1 ? "" : "s"} outside the axes`] : []),
  ];
  return {
    type: "scatter",
    data: {
      datasets: [
        { label: "candidates", data: scatter.points.filter((p) => p.kind === "candidate").map(xy), backgroundColor: "rgba(75, 85, 99, 0.45)", pointRadius: 3 },
        { label: "jobs (best)", data: scatter.points.filter((p) => p.kind === "job").map(xy), backgroundColor: "#2563eb", pointRadius: 6, pointStyle: "rectRot" },
        { type: "line", label: "Pareto front", data: scatter.front.map(xy), borderColor: "#dc2626", backgroundColor: "#dc2626", pointRadius: 5, pointStyle: "circle", fill: false },
      ],
    } as ChartConfiguration["data"],
    options: {
      responsive: true,
      maintainAspectRatio: false,
      parsing: false,
      plugins: { title: { display: true, text: title.join(" · ") } },
      scales: {
        x: { type: "linear", ...xRange, title: { display: true, text: axis(scatter.x, scatter.minimize.x) } },
        y: { ...yRange, title: { display: true, text: axis(scatter.y, scatter.minimize.y) } },
      },
    },
  };
}

export class RunCharts {
  readonly element: HTMLElement;
  private charts: Chart[] = [];
  private chosen: string[] | null = null;
  private payload: RunPayload | null = null;
  private drawn = "";
  private readonly jobPicker = h("div", { class: "job-picker" });
  private readonly grid = h("div", { class: "charts" });

  constructor() {
    this.element = h("section", null, this.grid, h("h3", null, "Jobs in the iteration chart"), this.jobPicker);
  }

  update(payload: RunPayload): void {
    this.payload = payload;
    const withIterations = payload.jobs.filter((j) => (payload.iterations[j.job_id] ?? []).length > 0).map((j) => j.job_id);
    // By default the jobs that went furthest.
    this.chosen ??= [...withIterations].sort((a, b) => (payload.iterations[b]?.length ?? 0) - (payload.iterations[a]?.length ?? 0)).slice(0, 4);
    this.draw(withIterations);
  }

  private draw(withIterations: readonly string[]): void {
    const payload = this.payload!;
    const key = JSON.stringify([payload.rows.map((r) => [r.job_id, r.status, r.score_val, r.total_tokens]), payload.iterations, this.chosen, payload.metric_scatter ?? null]);
    if (key === this.drawn) return;
    this.drawn = key;
    this.dispose();
    const configs: [string, ChartConfiguration][] = [
      ["means", meanByTaskArm(payload)],
      ["iterations", perIteration(payload, this.chosen ?? [])],
      ["tokens", scoreVsTokens(payload)],
      ["seeds", spreadOverSeeds(payload)],
      ...(payload.metric_scatter !== undefined ? [["metrics", metricScatterChart(payload.metric_scatter)] as [string, ChartConfiguration]] : []),
    ];
    fill(
      this.grid,
      configs.map(([name, config]) => {
        const canvas = h("canvas", { "aria-label": name });
        const box = h("div", { class: "chart", "data-chart": name }, canvas);
        queueMicrotask(() => {
          const chart = new Chart(canvas, config);
          this.charts.push(chart);
          // What the canvas shows, as data the page can be read (and checked) by.
          box.dataset.series = JSON.stringify({ labels: chart.data.labels ?? [], datasets: chart.data.datasets.map((d) => ({ label: d.label, data: d.data })) });
        });
        return box;
      }),
    );
    fill(
      this.jobPicker,
      withIterations.length === 0
        ? h("span", { class: "dim" }, "No job has recorded an iteration yet.")
        : withIterations.map((id) => {
            const job = payload.jobs.find((j) => j.job_id === id)!;
            return h(
              "label",
              null,
              h("input", {
                type: "checkbox",
                value: id,
                checked: this.chosen!.includes(id),
                onchange: (e: Event) => {
                  this.chosen = (e.target as HTMLInputElement).checked ? [...this.chosen!, id] : this.chosen!.filter((c) => c !== id);
                  this.draw(withIterations);
                },
              }),
              `${job.task_id} × ${armOf(job)} (seed ${job.seed})`,
            );
          }),
    );
  }

  dispose(): void {
    for (const chart of this.charts) chart.destroy();
    this.charts = [];
  }
}
