/**
 * Per-metric scores of a multi-objective task through the real CLI (issue 34): a stub run of
 * internal:multiobjective_convex under a weighted BasicSearch and a Pareto Beamsearch records
 * (and a Pareto PrioritySearch) records each job's base_loss and reg_loss in its events; results.csv, aggregate.csv and the TensorBoard
 * files show them; `replay` rebuilds them byte for byte and `replay --verify` passes; and the
 * dashboard draws the jobs and candidates on the two metrics with their Pareto front.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCsvRecords } from "../../src/codec/python-csv.js";
import { runCli, tempDir } from "../support/cli.js";
import { HAVE_CHROMIUM, launchBrowser, screenshot, startDashboard, type RunningDashboard } from "../support/dashboard.js";
import { eventsOf, filesUnder, singleRunDir } from "../support/run-dir.js";
import { readTbEvents } from "../support/tfevents-reader.js";

// What the functions run in the page below use of the browser (they run in Chromium, not in Node).
declare const document: { querySelectorAll(selector: string): { length: number } };

const OBJECTIVE = "{mode: MODE, weights: {base_loss: 1.0, reg_loss: 1.0}, minimize: [base_loss, reg_loss]}";
const CONFIG = [
  "mode: stub",
  "seeds: [42, 1]",
  "tasks:",
  "  - {id: internal:multiobjective_convex, eval_kwargs: {objective_mode: weighted}}",
  "trainers:",
  "  - id: BasicSearchAlgorithm",
  `    params_variants: [{num_proposals: 2, num_epochs: 2, batch_size: 1, objective_config: ${OBJECTIVE.replace("MODE", "weighted")}}]`,
  "  - id: BeamsearchAlgorithm",
  `    params_variants: [{beam_width: 2, num_proposals: 2, max_depth: 2, batch_size: 1, objective_config: ${OBJECTIVE.replace("MODE", "pareto")}}]`,
  "  - id: PrioritySearch",
  `    params_variants: [{ps_steps: 2, objective_config: ${OBJECTIVE.replace("MODE", "pareto")}}]`,
  "",
].join("\n");

const METRIC_COLUMNS = ["base_loss", "reg_loss"].flatMap((m) => ["initial", "final", "best"].map((p) => `score_${m}_${p}`));

type Metrics = Record<string, number>;
type JobMetrics = { initial?: Metrics; final?: Metrics; best?: Metrics };

/** Python's float text of a number (what results.csv writes). */
const pyFloat = (x: number) => (Number.isInteger(x) ? `${x}.0` : String(x));

let dir: string;
let runDir: string;

beforeAll(async () => {
  dir = tempDir();
  writeFileSync(join(dir, "config.yaml"), CONFIG);
  const r = await runCli(["run", "--config", join(dir, "config.yaml"), "--runs-dir", join(dir, "runs"), "--logger", "TensorboardLogger"]);
  expect(r.code, r.stderr).toBe(0);
  runDir = singleRunDir(join(dir, "runs"));
}, 300_000);

describe("per-metric scores of internal:multiobjective_convex (stub, weighted BasicSearch and Pareto Beamsearch)", () => {
  it("each job's JobFinished records its initial, final and best metrics; results.csv has them after every other column", async () => {
    const finished = new Map(eventsOf(runDir).flatMap((e) => (e.type === "JobFinished" ? [[e.job_id as string, e.data as { metrics?: JobMetrics; score_val: number; score_val_final: number; score_val_initial: number }]] : [])));
    const csv = readFileSync(join(runDir, "results.csv"), "utf8");
    const header = csv.split("\r\n")[0]!.split(",");
    expect(header.slice(-METRIC_COLUMNS.length - 0)).toEqual(METRIC_COLUMNS);
    expect(header.indexOf("variant")).toBe(header.length - METRIC_COLUMNS.length - 1);
    const rows = parseCsvRecords(csv);
    expect(rows).toHaveLength(6);
    for (const row of rows) {
      const metrics = finished.get(row.job_id!)!.metrics!;
      // The task's initial candidate is invalid (the original's first observation line): 1e6 on each loss.
      expect(metrics.initial).toEqual({ base_loss: 1e6, reg_loss: 1e6 });
      for (const phase of ["initial", "final", "best"] as const) {
        for (const metric of ["base_loss", "reg_loss"]) expect(row[`score_${metric}_${phase}`], `${row.job_id} ${metric} ${phase}`).toBe(pyFloat(metrics[phase]![metric]!));
      }
      // best is the evaluation score_val is of: the final one here (it beat the invalid start).
      expect(Number(row.score_val)).toBe(Number(row.score_val_final));
      expect(metrics.best).toEqual(metrics.final);
      // The task's reward is −(base + reg): the final score and the final metrics agree.
      expect(Number(row.score_val_final)).toBeCloseTo(-(metrics.final!.base_loss! + metrics.final!.reg_loss!), 9);
    }
  });

  it("aggregate.csv aggregates each metric's best values over seeds, per trainer", () => {
    const results = parseCsvRecords(readFileSync(join(runDir, "results.csv"), "utf8"));
    const aggregates = parseCsvRecords(readFileSync(join(runDir, "aggregate.csv"), "utf8"));
    expect(aggregates.map((a) => a.trainer_id)).toEqual(["BasicSearchAlgorithm", "BeamsearchAlgorithm", "PrioritySearch"]);
    for (const row of aggregates) {
      const seeds = results.filter((r) => r.trainer_id === row.trainer_id);
      for (const metric of ["base_loss", "reg_loss"]) {
        const values = seeds.map((r) => Number(r[`score_${metric}_best`]));
        expect(Number(row[`score_${metric}_mean`])).toBeCloseTo((values[0]! + values[1]!) / 2, 12);
        expect(Number(row[`score_${metric}_min`])).toBe(Math.min(...values));
        expect(Number(row[`score_${metric}_max`])).toBe(Math.max(...values));
        expect(Number(row[`score_${metric}_initial_mean`])).toBe(1e6);
      }
    }
  });

  it("each job's TensorBoard file has score/base_loss and score/reg_loss at the steps its trainer reports metrics with (every step of BasicSearch and Beamsearch)", () => {
    const rows = parseCsvRecords(readFileSync(join(runDir, "results.csv"), "utf8"));
    for (const row of rows) {
      const files = [...filesUnder(join(runDir, row.tb_logdir!)).keys()].filter((f) => f.includes("tfevents"));
      expect(files).toHaveLength(1);
      const steps = readTbEvents(readFileSync(join(runDir, row.tb_logdir!, files[0]!))).flatMap((e) => (e.scalars ? [e.scalars] : []));
      expect(steps.length).toBeGreaterThan(0);
      const withMetrics = steps.filter((scalars) => "score/base_loss" in scalars && "score/reg_loss" in scalars);
      if (row.trainer_id === "PrioritySearch") expect(withMetrics.length, row.job_id).toBeGreaterThan(0);
      else expect(withMetrics).toHaveLength(steps.length);
    }
  });

  it("replay rebuilds results.csv, aggregate.csv, summary.json, results.json and the TensorBoard files byte for byte; replay --verify passes", async () => {
    const before = filesUnder(runDir);
    const rows = parseCsvRecords(before.get("results.csv")!);
    for (const file of ["results.csv", "aggregate.csv", "summary.json"]) rmSync(join(runDir, file));
    for (const row of rows) {
      rmSync(join(runDir, row.tb_logdir!), { recursive: true });
      rmSync(join(runDir, "jobs", row.job_id!, "results.json"));
    }
    const replay = await runCli(["replay", runDir]);
    expect(replay.code, replay.stderr).toBe(0);
    const after = filesUnder(runDir);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [path, content] of before) expect(after.get(path), path).toBe(content);
    const verify = await runCli(["replay", "--verify", runDir]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  });
});

describe.skipIf(!HAVE_CHROMIUM)("the dashboard's metric scatter", () => {
  let dashboard: RunningDashboard;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    dashboard = await startDashboard({ cwd: dir, args: ["--runs-dir", "runs"] });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await dashboard?.stop();
  });

  it("draws every job at its best metrics, the candidates, and the Pareto front of both (lower is better on each loss)", async () => {
    await page.goto(dashboard.url);
    await page.locator("[data-testid=runs-table] tbody tr a").first().click();
    await page.click('a[data-tab="charts"]');
    await page.waitForFunction(() => document.querySelectorAll(".chart[data-series] canvas").length === 5, null, { timeout: 60_000 });
    type Point = { x: number; y: number; job_id: string; candidate: string | null };
    const series = JSON.parse((await page.locator(".chart[data-chart=metrics]").getAttribute("data-series"))!) as { datasets: { label: string; data: Point[] }[] };
    const byLabel = new Map(series.datasets.map((d) => [d.label, d.data]));
    expect([...byLabel.keys()]).toEqual(["candidates", "jobs (best)", "Pareto front"]);

    // Jobs: each at results.csv's best metrics.
    const rows = parseCsvRecords(readFileSync(join(runDir, "results.csv"), "utf8"));
    const jobs = byLabel.get("jobs (best)")!;
    expect(jobs.map((p) => [p.job_id, p.x, p.y]).sort()).toEqual(rows.map((r) => [r.job_id, Number(r.score_base_loss_best), Number(r.score_reg_loss_best)]).sort());

    // Candidates: those the log recorded with both metrics (each at its latest evaluation).
    const latest = new Map<string, [number, number]>();
    for (const e of eventsOf(runDir)) {
      const data = e.data as { candidate?: string; scores?: Metrics };
      if (e.type === "CandidateEvaluated" && data.scores?.base_loss !== undefined && data.scores.reg_loss !== undefined) latest.set(`${e.job_id} ${data.candidate}`, [data.scores.base_loss, data.scores.reg_loss]);
    }
    const candidates = byLabel.get("candidates")!;
    expect(candidates.length).toBeGreaterThan(0);
    expect(new Map(candidates.map((p) => [`${p.job_id} ${p.candidate}`, [p.x, p.y]]))).toEqual(latest);

    // The front: no drawn point is below-left of a front point (both losses minimized), every
    // other point has one at or below-left of it, and it runs along base_loss.
    const all = [...jobs, ...candidates];
    const dominates = (a: Point, b: Point) => a.x <= b.x && a.y <= b.y && (a.x < b.x || a.y < b.y);
    const front = byLabel.get("Pareto front")!;
    expect(front.length).toBeGreaterThan(0);
    for (const p of front) expect(all.some((q) => dominates(q, p))).toBe(false);
    for (const p of all) expect(front.some((f) => f.x === p.x && f.y === p.y) || front.some((f) => dominates(f, p))).toBe(true);
    expect(front.map((p) => p.x)).toEqual([...front.map((p) => p.x)].sort((a, b) => a - b));
    await screenshot(page, "metric-scatter", { element: page.locator(".chart[data-chart=metrics]") });
  });
});
