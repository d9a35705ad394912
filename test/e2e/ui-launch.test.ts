/**
 * Launching from the dashboard in a real headless Chromium: the smoke config is validated in the
 * editor, launched as a `trace-bench run` process of its own, and its progress reaches 100 % on
 * the page; a slow run is watched live, cancelled (it ends interrupted and resumable) and resumed
 * from the page to the end, each job finished exactly once.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, REPO_ROOT, tempDir } from "../support/cli.js";
import { HAVE_CHROMIUM, launchBrowser, screenshot, slowConfig, startDashboard, waitForExit, type RunningDashboard } from "../support/dashboard.js";
import { isRunning } from "../support/processes.js";
import { csvRows, eventsOf, FIXTURE_ENV } from "../support/run-dir.js";

// What the functions run in the page below use of the browser (they run in Chromium, not in Node).
declare const document: {
  querySelector(selector: string): { textContent: string | null; getAttribute(name: string): string | null } | null;
  querySelectorAll(selector: string): { length: number };
};
declare const location: { hash: string };

// Four jobs of about three seconds each (two agent calls of 1.5 s), one at a time.
const SLOW = slowConfig([1, 2, 3, 4], 1500);
const WAIT = { timeout: 90_000 };

const percentOf = async (page: Page) => Number(await page.locator("[data-testid=progress]").first().getAttribute("data-percent"));

describe.skipIf(!HAVE_CHROMIUM)("dashboard in Chromium: launch, watch, cancel, resume", () => {
  let dir: string;
  let dashboard: RunningDashboard;
  let browser: Browser;
  let page: Page;
  const launchedPids: number[] = [];

  beforeAll(async () => {
    dir = tempDir();
    mkdirSync(join(dir, "configs"));
    copyFileSync(join(REPO_ROOT, "configs", "smoke.yaml"), join(dir, "configs", "smoke.yaml"));
    writeFileSync(join(dir, "configs", "slow.yaml"), SLOW);
    // Launched runs inherit the dashboard's environment: the fixture suite provides the slow task.
    dashboard = await startDashboard({ cwd: dir, args: ["--runs-dir", "runs"], env: FIXTURE_ENV });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on("response", async (response) => {
      if (response.request().method() === "POST" && /\/api\/(launch|run\/resume)/.test(response.url()) && response.ok()) launchedPids.push(((await response.json()) as { pid: number }).pid);
    });
  }, 120_000);

  afterAll(async () => {
    // The runs started from the page end on their own; none may be left behind.
    expect(await waitForExit(launchedPids)).toBe(true);
    await browser?.close();
    await dashboard?.stop();
  }, 150_000);

  it("validates the smoke config in the editor, launches it and watches it reach 100 %", async () => {
    await page.goto(`${dashboard.url}#/launch`);
    await page.locator("[data-testid=config-select] option").first().waitFor({ state: "attached", ...WAIT });
    expect(await page.locator("[data-testid=config-select] option").allTextContents()).toEqual(["configs/slow.yaml", "configs/smoke.yaml"]);
    expect(await page.inputValue("[data-testid=config-select]")).toBe("configs/smoke.yaml");
    await page.waitForFunction(() => document.querySelector("[data-testid=validation-verdict]")?.textContent === "valid: 1 job", null, WAIT);

    // An edit is checked by validate --strict; an unsaved edit cannot be launched.
    const original = await page.inputValue("[data-testid=config-editor]");
    await page.fill("[data-testid=config-editor]", original.replace("id: PrioritySearch", "id: PrioritySerch"));
    await page.waitForFunction(() => /\[FAIL\].*PrioritySerch/.test(document.querySelector("[data-testid=validation]")?.textContent ?? ""), null, WAIT);
    expect(await page.isDisabled("[data-testid=launch]")).toBe(true);
    await page.fill("[data-testid=config-editor]", original);
    await page.waitForFunction(() => document.querySelector("[data-testid=validation-verdict]")?.textContent === "valid: 1 job", null, WAIT);
    expect(await page.isDisabled("[data-testid=launch]")).toBe(false);
    await screenshot(page, "launch", { readme: true });

    await page.click("[data-testid=launch]");
    await page.waitForFunction(() => location.hash.startsWith("#/run/"), null, WAIT);
    await page.waitForFunction(() => document.querySelector("[data-testid=progress]")?.getAttribute("data-percent") === "100" && document.querySelector("[data-testid=run-status]")?.textContent === "finished", null, WAIT);
    expect(await page.locator("[data-testid=progress] .text").textContent()).toMatch(/^1\/1 done \(100 %\), 0 failed, 0 running/);
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=results-table] tbody tr").length === 1, null, WAIT);
    // The smoke config is a stub run: its page says what stub scores mean, as the console does.
    expect(await page.locator("[data-testid=stub-caveat]").textContent()).toMatch(/^Mode stub: scores rank the search procedures against the stub LLM's seeded proposals/);
    await screenshot(page, "run-finished");

    const runDir = join(dir, "runs", decodeURIComponent(/#\/run\/([^?/]+)/.exec(page.url())![1]!));
    const rows = csvRows(join(runDir, "results.csv"));
    expect(rows.map((r) => [r.job_id, r.status])).toEqual([["806f391306ae", "ok"]]);
    expect(await page.locator('[data-testid=results-table] a:text-is("806f391306ae")').count()).toBe(1);
    // The launched process's console went to a file under the runs dir.
    const consoles = readdirSync(join(dir, "runs", ".trace-bench-ui"));
    expect(consoles).toHaveLength(1);
    expect(readFileSync(join(dir, "runs", ".trace-bench-ui", consoles[0]!), "utf8")).toContain("Run complete: ");
  }, 180_000);

  it("saves an edited config as a new file, never over the one it was opened from, and picks the new one to launch", async () => {
    const original = readFileSync(join(dir, "configs", "slow.yaml"), "utf8");
    await page.goto(`${dashboard.origin}/#/launch?config=configs/slow.yaml`);
    await page.waitForFunction(() => document.querySelector("[data-testid=validation-verdict]")?.textContent === "valid: 4 jobs", null, WAIT);
    expect(await page.inputValue("[data-testid=save-as]")).toBe("configs/slow-2.yaml");
    expect(await page.isDisabled("[data-testid=save]")).toBe(true); // nothing to save yet
    const edited = original.replace(/^seeds: .*$/m, "seeds: [1, 2]");
    expect(edited).not.toBe(original);
    await page.fill("[data-testid=config-editor]", edited);
    expect(await page.isDisabled("[data-testid=launch]")).toBe(true);
    await page.click("[data-testid=save]");
    await page.waitForFunction(() => document.querySelector("[data-testid=save-state]")?.textContent === "saved as configs/slow-2.yaml", null, WAIT);
    expect(readFileSync(join(dir, "configs", "slow-2.yaml"), "utf8")).toBe(edited);
    expect(readFileSync(join(dir, "configs", "slow.yaml"), "utf8")).toBe(original);
    // The new file is the one picked (and launched); the next copy gets the next free name.
    expect(await page.inputValue("[data-testid=config-select]")).toBe("configs/slow-2.yaml");
    expect(await page.locator("[data-testid=config-select] option").allTextContents()).toEqual(["configs/slow-2.yaml", "configs/slow.yaml", "configs/smoke.yaml"]);
    expect(await page.inputValue("[data-testid=save-as]")).toBe("configs/slow-3.yaml");
    expect(await page.isDisabled("[data-testid=launch]")).toBe(false);
    // A name that is taken is refused, and nothing is written.
    await page.fill("[data-testid=config-editor]", `${edited}# more\n`);
    await page.fill("[data-testid=save-as]", "configs/slow.yaml");
    await page.click("[data-testid=save]");
    await page.waitForFunction(() => /^save failed: .*configs\/slow\.yaml exists/.test(document.querySelector("[data-testid=save-state]")?.textContent ?? ""), null, WAIT);
    expect(readFileSync(join(dir, "configs", "slow.yaml"), "utf8")).toBe(original);
    // Leave the launch page (the next test opens this very address, which would not load it again).
    await page.goto(`${dashboard.origin}/#/`);
  }, 120_000);

  it("watches a slow run live, cancels it (interrupted, resumable) and resumes it to the end", async () => {
    await page.goto(`${dashboard.origin}/#/launch?config=configs/slow.yaml`);
    await page.waitForFunction(() => document.querySelector("[data-testid=validation-verdict]")?.textContent === "valid: 4 jobs", null, WAIT);
    await page.click("[data-testid=launch]");
    await page.waitForFunction(() => location.hash.startsWith("#/run/"), null, WAIT);
    const relDir = decodeURIComponent(/#\/run\/([^?/]+)/.exec(page.url())![1]!);
    // Progress arrives without reloading: a mark set on this document survives.
    await page.evaluate(() => ((globalThis as unknown as { stayed: boolean }).stayed = true));
    await page.waitForFunction(() => Number(document.querySelector("[data-testid=progress]")?.getAttribute("data-percent")) >= 25, null, WAIT);
    expect(await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed)).toBe(true);
    expect(await page.locator("[data-testid=run-status]").first().textContent()).toBe("running");
    expect(await percentOf(page)).toBeLessThan(100);
    await screenshot(page, "run-live", { readme: true });

    await page.click("[data-testid=cancel]");
    await page.waitForFunction(() => document.querySelector("[data-testid=run-status]")?.textContent === "interrupted", null, WAIT);
    const cancelledAt = await percentOf(page);
    expect(cancelledAt).toBeGreaterThanOrEqual(25);
    expect(cancelledAt).toBeLessThan(100);
    const runDir = join(dir, "runs", relDir);
    const interrupted = eventsOf(runDir);
    expect(interrupted.filter((e) => e.type === "RunInterrupted").map((e) => e.data.signal)).toEqual(["SIGINT"]);
    expect(interrupted.some((e) => e.type === "RunFinished")).toBe(false);
    // The page says how to resume it from a terminal, and its Resume button runs just that.
    expect(await page.locator("[data-testid=resume-command]").textContent()).toBe(
      `node ${CLI} run --config ${join(runDir, "meta", "config.snapshot.yaml")} --resume auto --run-id ${relDir} --runs-dir ${join(dir, "runs")}`,
    );
    await screenshot(page, "run-interrupted");

    await page.click("[data-testid=resume]");
    await page.waitForFunction(() => document.querySelector("[data-testid=run-status]")?.textContent === "running", null, WAIT);
    await page.waitForFunction(() => document.querySelector("[data-testid=progress]")?.getAttribute("data-percent") === "100" && document.querySelector("[data-testid=run-status]")?.textContent === "finished", null, WAIT);
    expect(await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed)).toBe(true);

    const events = eventsOf(runDir);
    expect(events.filter((e) => e.type === "RunStarted").map((e) => e.data.invocation)).toEqual([1, 2]);
    expect(events.filter((e) => e.type === "RunFinished")).toHaveLength(1);
    const rows = csvRows(join(runDir, "results.csv"));
    expect(rows).toHaveLength(4);
    expect(rows.every((r) => r.status === "ok")).toBe(true);
    expect(new Set(rows.map((r) => r.job_id)).size).toBe(4);
    // Jobs the first invocation finished were not run again.
    const okBefore = interrupted.filter((e) => e.type === "JobFinished" && e.data.status === "ok").map((e) => e.job_id);
    const secondStart = events.filter((e) => e.type === "RunStarted")[1]!.seq;
    expect(events.filter((e) => e.seq > secondStart && e.type === "JobQueued" && okBefore.includes(e.job_id))).toEqual([]);
  }, 240_000);

  it("a running job's inspector follows its machine to the end without reloading", async () => {
    writeFileSync(join(dir, "configs", "one-slow.yaml"), slowConfig([7], 2500));
    await page.goto(`${dashboard.origin}/#/launch?config=configs/one-slow.yaml`);
    await page.waitForFunction(() => document.querySelector("[data-testid=validation-verdict]")?.textContent === "valid: 1 job", null, WAIT);
    await page.click("[data-testid=launch]");
    await page.waitForFunction(() => location.hash.startsWith("#/run/"), null, WAIT);
    const link = page.locator("[data-testid=results-table] tbody a");
    await link.waitFor(WAIT);
    await link.click();
    await page.locator("[data-testid=machine-diagram]").waitFor(WAIT);
    await page.evaluate(() => ((globalThis as unknown as { stayed: boolean }).stayed = true));
    const first = await page.locator("[data-testid=job-state]").textContent();
    expect(["not started", "queued", "building", "training", "evaluating"]).toContain(first);
    await page.waitForFunction(() => document.querySelector("[data-testid=job-state]")?.textContent === "done", null, WAIT);
    expect(await page.locator("[data-testid=machine-diagram] g.node.current").getAttribute("data-state")).toBe("done");
    expect((await page.locator("[data-testid=job-path]").textContent())?.replace(/\s+/g, " ")).toBe("attempt 1: queued —START→ building —BUILT→ training —TRAINED→ evaluating —EVALUATED→ done");
    expect(await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed)).toBe(true);
  }, 180_000);
});

describe("dashboard: a launched run outlives it", () => {
  it("stopping the dashboard does not stop a run it launched", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "configs"));
    // Its jobs wait for the gate file: the run is still going when the dashboard stops, however busy the machine.
    const gate = join(dir, "gate");
    writeFileSync(join(dir, "configs", "slow.yaml"), `mode: stub\nseeds: [1, 2]\nmax_workers: 1\ntasks:\n  - {id: fixture:wait_for_file, eval_kwargs: {gate_file: ${gate}}}\ntrainers: [NoOpTrainer]\n`);
    const dashboard = await startDashboard({ cwd: dir, args: ["--runs-dir", "runs"], env: FIXTURE_ENV });
    const reply = await dashboard.request("/api/launch", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ config: "configs/slow.yaml" }) });
    expect(reply.status, reply.body).toBe(200);
    const { pid, launch_id } = JSON.parse(reply.body) as { pid: number; launch_id: string };
    // Once the run has its directory, stop the dashboard (as Ctrl-C would).
    let relDir: string | null = null;
    for (const end = Date.now() + 60_000; relDir === null && Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
      relDir = (JSON.parse((await dashboard.request(`/api/launch?id=${launch_id}`)).body) as { rel_dir: string | null }).rel_dir;
    }
    expect(relDir).not.toBeNull();
    expect(await dashboard.stop()).toBe(0);
    expect(isRunning(pid)).toBe(true);
    writeFileSync(gate, "");
    expect(await waitForExit([pid])).toBe(true);
    const events = eventsOf(join(dir, "runs", relDir!));
    expect(events.filter((e) => e.type === "RunFinished")).toHaveLength(1);
    expect(events.filter((e) => e.type === "JobFinished").map((e) => e.data.status)).toEqual(["ok", "ok"]);
  }, 180_000);
});
