/**
 * A run started from a terminal, not from the page, watched live in a real headless Chromium:
 * `trace-bench run` is a child process of the test, the dashboard only reads its log, and the
 * runs list, the progress and a job's state follow it to the end without reloading.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, tempDir } from "../support/cli.js";
import { HAVE_CHROMIUM, launchBrowser, screenshot, slowConfig, startDashboard, waitForExit, type RunningDashboard } from "../support/dashboard.js";
import { csvRows, FIXTURE_ENV, singleRunDir } from "../support/run-dir.js";

// What the functions run in the page below use of the browser (they run in Chromium, not in Node).
declare const document: {
  querySelector(selector: string): { textContent: string | null; getAttribute(name: string): string | null } | null;
  querySelectorAll(selector: string): { length: number };
};

// Three jobs of about 2.5 seconds each (two agent calls of 1.2 s), one at a time.
const SLOW = slowConfig([1, 2, 3], 1200);
const WAIT = { timeout: 90_000 };
const ACTIVE = ["building", "training", "evaluating"];

describe.skipIf(!HAVE_CHROMIUM)("dashboard in Chromium: a run started from a terminal", () => {
  let dir: string;
  let dashboard: RunningDashboard;
  let browser: Browser;
  let page: Page;
  let run: ChildProcess | null = null;

  beforeAll(async () => {
    dir = tempDir();
    mkdirSync(join(dir, "configs"));
    writeFileSync(join(dir, "configs", "slow.yaml"), SLOW);
    dashboard = await startDashboard({ cwd: dir, args: ["--runs-dir", "runs"] });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  }, 120_000);

  afterAll(async () => {
    if (run?.pid !== undefined && !(await waitForExit([run.pid], 60_000))) run.kill("SIGKILL");
    await browser?.close();
    await dashboard?.stop();
  }, 120_000);

  it("shows the run appear, its progress and a job's state change, without reloading", async () => {
    await page.goto(dashboard.url);
    await page.locator("text=No runs yet").waitFor(WAIT);
    // A mark on this document: it survives only if the page is never reloaded.
    await page.evaluate(() => ((globalThis as unknown as { stayed: boolean }).stayed = true));
    const stayed = () => page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed);

    run = spawn(process.execPath, [CLI, "run", "--config", "configs/slow.yaml", "--runs-dir", "runs"], { cwd: dir, env: { ...process.env, ...FIXTURE_ENV }, stdio: "ignore" });
    const exited = new Promise<number | null>((done) => run!.on("exit", (code) => done(code)));

    // The runs list picks the new run up on its own, running, with its config's name.
    const row = page.locator("[data-testid=runs-table] tbody tr");
    await page.waitForFunction(() => document.querySelector("[data-testid=runs-table] tbody tr [data-testid=run-status]")?.textContent === "running", null, WAIT);
    expect(await row.locator("[data-testid=config-name]").textContent()).toBe("slow.yaml");
    expect(await stayed()).toBe(true);

    await row.locator("a").first().click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=results-table] tbody tr").length === 3, null, WAIT);
    // The last job of the matrix runs last: seen waiting, then active, then done.
    const jobId = (await page.locator("[data-testid=results-table] tbody tr").last().getAttribute("data-job"))!;
    const stateOf = (id: string) =>
      page.evaluate((job) => {
        const table = document.querySelector("[data-testid=results-table]") as unknown as { querySelectorAll(s: string): ArrayLike<{ getAttribute(n: string): string | null }> };
        const index = Array.from(table.querySelectorAll("thead th")).findIndex((th) => th.getAttribute("data-column") === "state");
        const row = document.querySelector(`[data-testid=results-table] tbody tr[data-job="${job}"]`) as unknown as { children: ArrayLike<{ textContent: string | null }> } | null;
        return row === null ? null : row.children[index]!.textContent;
      }, id);
    const waitForState = (id: string, states: readonly string[]) =>
      page.waitForFunction(
        ([job, wanted]) => {
          const table = document.querySelector("[data-testid=results-table]") as unknown as { querySelectorAll(s: string): ArrayLike<{ getAttribute(n: string): string | null }> };
          const index = Array.from(table.querySelectorAll("thead th")).findIndex((th) => th.getAttribute("data-column") === "state");
          const row = document.querySelector(`[data-testid=results-table] tbody tr[data-job="${job}"]`) as unknown as { children: ArrayLike<{ textContent: string | null }> } | null;
          return row !== null && (wanted as string[]).includes(row.children[index]!.textContent ?? "");
        },
        [id, [...states]] as const,
        { ...WAIT, polling: 50 },
      );
    expect(["not started", "queued"]).toContain(await stateOf(jobId));
    const percent = async () => Number(await page.locator("[data-testid=progress]").first().getAttribute("data-percent"));
    expect(await percent()).toBeLessThan(100);

    // Progress moves while the run goes on: a third done, then the last job active.
    await page.waitForFunction(() => {
      const p = Number(document.querySelector("[data-testid=progress]")?.getAttribute("data-percent"));
      return p >= 33 && p < 100;
    }, null, WAIT);
    expect(await page.locator("[data-testid=run-status]").first().textContent()).toBe("running");
    expect(await page.locator("[data-testid=progress] .text").first().textContent()).toMatch(/^[12]\/3 done \(\d+ %\), 0 failed, [01] running · .* elapsed, ETA /);
    await waitForState(jobId, ACTIVE);
    await screenshot(page, "run-from-terminal");
    await waitForState(jobId, ["done"]);

    await page.waitForFunction(() => document.querySelector("[data-testid=run-status]")?.textContent === "finished", null, WAIT);
    expect(await percent()).toBe(100);
    expect(await stayed()).toBe(true);
    expect(await exited).toBe(0);
    const rows = csvRows(join(singleRunDir(join(dir, "runs")), "results.csv"));
    expect(rows.map((r) => r.status)).toEqual(["ok", "ok", "ok"]);
    expect(rows.map((r) => r.job_id)).toContain(jobId);
  }, 180_000);
});
