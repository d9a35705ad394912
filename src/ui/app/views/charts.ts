/**
 * The run's charts (Chart.js, canvas): best score per task and trainer, score per iteration of
 * chosen jobs, score against tokens (what each trainer buys per token), and the spread of scores
 * over seeds per task × trainer. Scores are score_val of jobs that ended ok.
 */
import { Chart, registerables, type ChartConfiguration } from "chart.js";
import type { RunPayload } from "../../api-types.js";
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

function bestByTaskTrainer(payload: RunPayload): ChartConfiguration {
  const rows = okRows(payload);
  const tasks = unique(rows.map((r) => String(r.task_id)));
  const trainers = unique(rows.map((r) => String(r.trainer_id)));
  const best = (task: string, trainer: string) => {
    const scores = rows.filter((r) => r.task_id === task && r.trainer_id === trainer).map((r) => r.score_val as number);
    return scores.length === 0 ? null : Math.max(...scores);
  };
  return {
    type: "bar",
    data: { labels: tasks, datasets: trainers.map((t, i) => ({ label: t, data: tasks.map((task) => best(task, t)), backgroundColor: colorOf(i) })) },
    options: { responsive: true, maintainAspectRatio: false, plugins: { title: { display: true, text: "Best score_val per task and trainer" } }, scales: { y: { title: { display: true, text: "score_val" } } } },
  };
}

function perIteration(payload: RunPayload, jobs: readonly string[]): ChartConfiguration {
  const label = (id: string) => {
    const job = payload.jobs.find((j) => j.job_id === id);
    return job === undefined ? id : `${job.task_id} × ${job.trainer_id} s${job.seed} (${id.slice(0, 6)})`;
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
  const trainers = unique(rows.map((r) => String(r.trainer_id)));
  return {
    type: "scatter",
    data: {
      datasets: trainers.map((t, i) => ({
        label: t,
        data: rows.filter((r) => r.trainer_id === t).map((r) => ({ x: Number(r.total_tokens), y: r.score_val as number })),
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
    const key = `${r.task_id} × ${r.trainer_id}`;
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
    const key = JSON.stringify([payload.rows.map((r) => [r.job_id, r.status, r.score_val, r.total_tokens]), payload.iterations, this.chosen]);
    if (key === this.drawn) return;
    this.drawn = key;
    this.dispose();
    const configs: [string, ChartConfiguration][] = [
      ["best", bestByTaskTrainer(payload)],
      ["iterations", perIteration(payload, this.chosen ?? [])],
      ["tokens", scoreVsTokens(payload)],
      ["seeds", spreadOverSeeds(payload)],
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
              `${job.task_id} × ${job.trainer_id} (seed ${job.seed})`,
            );
          }),
    );
  }

  dispose(): void {
    for (const chart of this.charts) chart.destroy();
    this.charts = [];
  }
}
