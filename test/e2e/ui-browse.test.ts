/**
 * The dashboard in a real headless Chromium: the runs list, a run's results table (sorted,
 * filtered), its charts, leaderboard and token audit, and a job's machine diagram, path,
 * iteration history and LLM calls, all checked against the run's own files and log.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, tempDir } from "../support/cli.js";
import { HAVE_CHROMIUM, launchBrowser, screenshot, startDashboard, type RunningDashboard } from "../support/dashboard.js";
import { csvRows, eventsOf, FIXTURE_ENV, singleRunDir } from "../support/run-dir.js";


// What the functions run in the page below use of the browser (they run in Chromium, not in Node).
declare const document: {
  querySelector(selector: string): { textContent: string | null; getAttribute(name: string): string | null } | null;
  querySelectorAll(selector: string): { length: number };
};
declare const location: { hash: string };

const MATRIX = `mode: stub
seeds: [1, 2]
max_workers: 2
tasks:
  - internal:multi_param
  - internal:numeric_param
  - fixture:flaky
trainers:
  - NoOpTrainer
  - {id: PrioritySearch, params_variants: [{ps_steps: 3, ps_batches: 1}]}
`;
const WAIT = { timeout: 60_000 };

describe.skipIf(!HAVE_CHROMIUM)("dashboard in Chromium: browse a run", () => {
  let dir: string;
  let runDir: string;
  let dashboard: RunningDashboard;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    dir = tempDir();
    mkdirSync(join(dir, "configs"));
    writeFileSync(join(dir, "configs", "matrix.yaml"), MATRIX);
    const ran = runCli(["run", "--config", "configs/matrix.yaml", "--runs-dir", "runs"], { cwd: dir, env: FIXTURE_ENV });
    expect(ran.code, ran.stderr).toBe(1); // fixture:flaky fails under NoOpTrainer
    runDir = singleRunDir(join(dir, "runs"));
    // Runs started from the page (Retry failed) inherit the fixture suite.
    dashboard = await startDashboard({ cwd: dir, args: ["--runs-dir", "runs"], env: FIXTURE_ENV });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await dashboard?.stop();
  });

  it("lists the run, opens it, sorts and filters its results table", async () => {
    await page.goto(dashboard.url);
    const row = page.locator("[data-testid=runs-table] tbody tr");
    await row.first().waitFor(WAIT);
    expect(await row.count()).toBe(1);
    expect(await row.locator("[data-testid=run-status]").textContent()).toBe("finished");
    expect(await row.textContent()).toContain("10 ok, 2 failed (of 12)");
    await screenshot(page, "runs-list", { readme: true });

    await row.locator("a").first().click();
    const rows = page.locator("[data-testid=results-table] tbody tr");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=results-table] tbody tr").length === 12, null, WAIT);
    const csv = csvRows(join(runDir, "results.csv"));
    expect(csv).toHaveLength(12);

    const column = async (name: string) => {
      const index = await page.locator("[data-testid=results-table] thead th").evaluateAll((ths, n) => ths.findIndex((th) => th.getAttribute("data-column") === n), name);
      return rows.evaluateAll((trs, i) => trs.map((tr) => tr.children[i]!.textContent ?? ""), index);
    };
    const header = page.locator('[data-testid=results-table] th[data-column="score_val"]');
    await header.click();
    expect(await header.getAttribute("aria-sort")).toBe("ascending");
    const ascending = (await column("score_val")).map(Number);
    // The page shows six significant digits (the files keep them all).
    expect(ascending).toEqual(csv.map((r) => Number(Number(r.score_val).toPrecision(6))).sort((a, b) => a - b));
    await header.click();
    expect(await header.getAttribute("aria-sort")).toBe("descending");
    const descending = (await column("score_val")).map(Number);
    expect(descending).toEqual([...ascending].reverse());
    expect(descending[0]).toBeGreaterThan(descending.at(-1)!);
    // The job ids follow their rows.
    const best = csv.reduce((a, b) => (Number(b.score_val) > Number(a.score_val) ? b : a));
    expect((await column("job_id"))[0]).toBe(best.job_id);
    await screenshot(page, "run-results", { readme: true });

    await page.fill("[data-testid=results-filter]", "flaky");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=results-table] tbody tr").length === 4, null, WAIT);
    await page.selectOption("[data-testid=status-filter]", "failed");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=results-table] tbody tr").length === 2, null, WAIT);
    expect(new Set(await column("status"))).toEqual(new Set(["failed"]));
  }, 120_000);

  it("shows the charts, the leaderboard per task and the token audit", async () => {
    await page.click('a[data-tab="charts"]');
    await page.waitForFunction(() => document.querySelectorAll(".chart canvas").length === 4, null, WAIT);
    expect(await page.locator(".job-picker input:checked").count()).toBe(4);
    await screenshot(page, "run-charts", { readme: true });

    await page.click('a[data-tab="leaderboard"]');
    await page.locator("[data-testid=leaderboard]").waitFor(WAIT);
    expect(await page.locator("[data-testid=leaderboard] h3").allTextContents()).toEqual(["fixture:flaky", "internal:multi_param", "internal:numeric_param"]);

    await page.click('a[data-tab="tokens"]');
    const byTrainer = page.locator('[data-audit="trainer"] tbody tr');
    await byTrainer.first().waitFor(WAIT);
    const calls = eventsOf(runDir).filter((e) => e.type === "LlmCallCompleted").length;
    const total = await byTrainer.last().locator("td").nth(1).textContent();
    expect(Number(total?.replace(/,/g, ""))).toBe(calls);
    expect(calls).toBeGreaterThan(0);
  }, 120_000);

  it("opens a job: its machine diagram with the path taken, its iterations and LLM calls", async () => {
    const events = eventsOf(runDir);
    const spec = (events.find((e) => e.type === "RunStarted")!.data.matrix as { job_id: string; task_id: string; trainer_id: string; seed: number }[]).find(
      (j) => j.task_id === "internal:multi_param" && j.trainer_id === "PrioritySearch" && j.seed === 1,
    )!;
    await page.click('a[data-tab="results"]');
    await page.fill("[data-testid=results-filter]", "");
    await page.selectOption("[data-testid=status-filter]", "");
    await page.click(`[data-testid=results-table] a:text-is("${spec.job_id}")`);

    const diagram = page.locator("[data-testid=machine-diagram]");
    await diagram.waitFor(WAIT);
    expect(await page.locator("[data-testid=job-state]").textContent()).toBe("done");
    expect(await diagram.locator("g.node").count()).toBe(10);
    expect(await diagram.locator("g.node.current").getAttribute("data-state")).toBe("done");
    expect(await diagram.locator("g.edge.taken").evaluateAll((gs) => gs.map((g) => g.getAttribute("data-edge")))).toEqual([
      "queued->building",
      "building->training",
      "training->evaluating",
      "evaluating->done",
    ]);
    expect((await page.locator("[data-testid=job-path]").textContent())?.replace(/\s+/g, " ")).toBe("attempt 1: queued —START→ building —BUILT→ training —TRAINED→ evaluating —EVALUATED→ done");

    const mine = events.filter((e) => e.job_id === spec.job_id);
    const steps = mine.filter((e) => e.type === "IterationCompleted");
    expect(steps.length).toBeGreaterThan(0);
    expect(await page.locator("[data-testid=iterations] details").count()).toBe(steps.length);
    await page.locator("[data-testid=iterations] details").first().locator("summary").click();
    const firstValues = steps[0]!.data.values as Record<string, unknown>;
    for (const name of Object.keys(firstValues)) expect(await page.locator("[data-testid=iterations] details[open] .param-name").allTextContents()).toContainEqual(expect.stringContaining(name));
    // The first step is diffed against the job's initial values.
    const initial = mine.find((e) => e.type === "JobFinished")!.data.initial_values as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v, null, 2));
    const changed = Object.keys(firstValues).filter((name) => text(initial[name]) !== text(firstValues[name]));
    expect(changed.length).toBeGreaterThan(0);
    const diffs = await page.locator("[data-testid=iterations] details[open] pre.diff").allTextContents();
    expect(diffs).toHaveLength(changed.length);
    for (const [i, name] of changed.entries()) expect(diffs[i]).toBe(`- ${text(initial[name])}+ ${text(firstValues[name])}`);
    expect(await page.locator("[data-testid=llm-calls] details").count()).toBe(mine.filter((e) => e.type === "LlmCallCompleted").length);
    await page.locator("[data-testid=llm-calls] details").first().locator("summary").click();
    expect(await page.locator("[data-testid=llm-calls] details[open] .message .role").first().textContent()).toBe("system");
    expect(await page.locator("[data-testid=timeline] tbody tr").count()).toBe(mine.length);
    await screenshot(page, "job-inspector", { readme: true });

    // A failed job: the diagram ends in failed, through the training failure.
    const failed = csvRows(join(runDir, "results.csv")).find((r) => r.status === "failed")!;
    await page.goto(`${dashboard.origin}/#/run/${encodeURIComponent(failed.run_id)}/job/${failed.job_id}`);
    // The previous job's page stays until the new one has loaded.
    await page.waitForFunction((id) => document.querySelector("h1 .mono")?.textContent === id, failed.job_id, WAIT);
    expect(await page.locator("[data-testid=machine-diagram] g.node.current").getAttribute("data-state")).toBe("failed");
    expect(await page.locator("[data-testid=job-path]").textContent()).toContain("TRAINING_FAILED");
  }, 120_000);

  it("Retry failed re-runs only the failed jobs, as run --resume failed", async () => {
    const before = eventsOf(runDir);
    const failedJobs = before.filter((e) => e.type === "JobFinished" && e.data.status === "failed").map((e) => e.job_id);
    expect(failedJobs).toHaveLength(2);
    await page.goto(`${dashboard.origin}/#/run/${encodeURIComponent(runDir.split("/").at(-1)!)}`);
    await page.click("[data-testid=retry-failed]");
    // The retried jobs fail again (the flaky task always does under NoOpTrainer): the run has a second invocation.
    await page.waitForFunction(() => /2 invocations/.test(document.querySelector(".run-header")?.textContent ?? "") && document.querySelector("[data-testid=run-status]")?.textContent === "finished", null, WAIT);
    const after = eventsOf(runDir);
    const second = after.filter((e) => e.type === "RunStarted")[1]!;
    expect(second.data.resume_mode).toBe("failed");
    expect(after.filter((e) => e.seq > second.seq && e.type === "JobQueued").map((e) => e.job_id).sort()).toEqual([...failedJobs].sort());
    expect(await page.locator("[data-testid=run-status]").textContent()).toBe("finished");
  }, 120_000);
});
