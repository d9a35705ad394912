/**
 * The dashboard in a real headless Chromium: the runs list (with the config's name), a run's
 * results table (sorted, filtered, columns chosen), its charts, leaderboard and token audit, and
 * a job's machine diagram, path, iteration history, LLM calls, evaluations and files, all checked
 * against the run's own files and log.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli, tempDir } from "../support/cli.js";
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
    const ran = await runCli(["run", "--config", "configs/matrix.yaml", "--runs-dir", "runs"], { cwd: dir, env: FIXTURE_ENV });
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
    // The config's name: the file `run` was given, as its RunStarted records it.
    expect(eventsOf(runDir).find((e) => e.type === "RunStarted")!.data.config_name).toBe("matrix.yaml");
    expect(await row.locator("[data-testid=config-name]").textContent()).toBe("matrix.yaml");
    await screenshot(page, "runs-list", { readme: true });

    await row.locator("a").first().click();
    const rows = page.locator("[data-testid=results-table] tbody tr");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=results-table] tbody tr").length === 12, null, WAIT);
    expect(await page.locator(".run-header [data-testid=config-name]").textContent()).toBe("matrix.yaml");
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
    await page.fill("[data-testid=results-filter]", "");
    await page.selectOption("[data-testid=status-filter]", "");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=results-table] tbody tr").length === 12, null, WAIT);
  }, 120_000);

  it("hides and shows columns of the results table, and keeps the choice across reloads", async () => {
    const headers = () => page.locator("[data-testid=results-table] thead th").evaluateAll((ths) => ths.map((th) => th.getAttribute("data-column")));
    const before = await headers();
    expect(before).toContain("score_test");
    expect(before).not.toContain("run_id");
    await page.click(".results-table details.columns summary");
    const chooser = page.locator(".results-table details.columns label");
    // Every results.csv column (and the live state) can be chosen.
    const csvColumns = readFileSync(join(runDir, "results.csv"), "utf8").split("\r\n")[0]!.split(",");
    expect(await chooser.allTextContents()).toEqual([...csvColumns, "state"]);

    await chooser.filter({ hasText: /^score_test$/ }).locator("input").uncheck();
    expect(await headers()).toEqual(before.filter((c) => c !== "score_test"));
    expect(await page.locator("[data-testid=results-table] tbody tr").first().locator("td").count()).toBe(before.length - 1);

    await chooser.filter({ hasText: /^run_id$/ }).locator("input").check();
    const shown = await headers();
    expect(shown).toContain("run_id");
    // Columns keep results.csv's order.
    expect(shown.indexOf("run_id")).toBe(0);
    const runIds = await page.locator("[data-testid=results-table] tbody tr").evaluateAll((trs) => trs.map((tr) => tr.children[0]!.textContent));
    expect(new Set(runIds)).toEqual(new Set(csvRows(join(runDir, "results.csv")).map((r) => r.run_id)));

    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=results-table] tbody tr").length === 12, null, WAIT);
    expect(await headers()).toEqual(shown);
    // Back to the defaults for the tests that follow.
    await page.click(".results-table details.columns summary");
    await chooser.filter({ hasText: /^run_id$/ }).locator("input").uncheck();
    await chooser.filter({ hasText: /^score_test$/ }).locator("input").check();
    expect(await headers()).toEqual(before);
  }, 120_000);

  it("shows the charts (each with the run's numbers; ticking jobs redraws score per iteration), the leaderboard per task and the token audit", async () => {
    await page.click('a[data-tab="charts"]');
    await page.waitForFunction(() => document.querySelectorAll(".chart[data-series] canvas").length === 4, null, WAIT);
    expect(await page.locator(".job-picker input:checked").count()).toBe(4);
    await screenshot(page, "run-charts", { readme: true });

    // Each chart holds the run's own numbers: results.csv's ok rows and the log's iterations.
    type Series = { labels: string[]; datasets: { label: string; data: unknown[] }[] };
    const series = async (name: string) => JSON.parse((await page.locator(`.chart[data-chart=${name}]`).getAttribute("data-series"))!) as Series;
    const ok = csvRows(join(runDir, "results.csv")).filter((r) => r.status === "ok");
    const sorted = (values: string[]) => [...new Set(values)].sort();
    const scores = (rows: typeof ok) => rows.map((r) => Number(r.score_val));
    const tasks = sorted(ok.map((r) => r.task_id));
    const trainers = sorted(ok.map((r) => r.trainer_id));
    expect(trainers).toEqual(["NoOpTrainer", "PrioritySearch"]);
    expect(ok.some((r) => r.task_id === "fixture:flaky" && r.trainer_id === "NoOpTrainer")).toBe(false);
    // An arm is a trainer with its params variant (a trainer without params is its name alone).
    const armOf = (r: (typeof ok)[number]) => (r.variant === "default" ? r.trainer_id! : `${r.trainer_id} · ${r.variant}`);
    const arms = sorted(ok.map(armOf));
    expect(arms).toEqual(["NoOpTrainer", "PrioritySearch · ps_batches=1,ps_steps=3"]);
    const means = await series("means");
    expect(means.labels).toEqual(tasks);
    expect(means.datasets.map((d) => d.label)).toEqual(arms);
    for (const [i, arm] of arms.entries()) {
      // The mean over seeds (not the best seed); no bar where an arm has no ok job on a task (fixture:flaky under NoOpTrainer).
      const meanOf = (task: string) => {
        const mine = scores(ok.filter((r) => r.task_id === task && armOf(r) === arm));
        return mine.length === 0 ? null : mine.reduce((a, b) => a + b, 0) / mine.length;
      };
      const drawn = means.datasets[i]!.data as (number | null)[];
      tasks.forEach((task, t) => (meanOf(task) === null ? expect(drawn[t]).toBeNull() : expect(drawn[t]).toBeCloseTo(meanOf(task)!, 12)));
    }
    const byText = (points: unknown[]) => points.map((p) => JSON.stringify(p)).sort();
    const tokens = await series("tokens");
    expect(tokens.datasets.map((d) => d.label)).toEqual(arms);
    for (const [i, arm] of arms.entries()) {
      expect(byText(tokens.datasets[i]!.data)).toEqual(byText(ok.filter((r) => armOf(r) === arm).map((r) => ({ x: Number(r.total_tokens), y: Number(r.score_val) }))));
    }
    const seeds = await series("seeds");
    const groups = sorted(ok.map((r) => `${r.task_id} × ${armOf(r)}`));
    const groupScores = (g: string) => scores(ok.filter((r) => `${r.task_id} × ${armOf(r)}` === g));
    expect(seeds.labels).toEqual(groups);
    expect(seeds.datasets.map((d) => d.label)).toEqual(["min – max over seeds", "one seed", "mean"]);
    expect(seeds.datasets[0]!.data).toEqual(groups.map((g) => [Math.min(...groupScores(g)), Math.max(...groupScores(g))]));
    expect(byText(seeds.datasets[1]!.data)).toEqual(byText(groups.flatMap((g) => groupScores(g).map((y) => ({ x: g, y })))));

    // Score per iteration: the ticked jobs' steps as the log has them; ticking and unticking redraws it.
    const events = eventsOf(runDir);
    const stepsOf = (jobId: string) => events.filter((e) => e.type === "IterationCompleted" && e.job_id === jobId).map((e) => ({ x: e.data.step, y: e.data.score }));
    const plotted = async () => {
      const lines = (await series("iterations")).datasets.filter((d) => !d.label.endsWith(" best"));
      return new Map(lines.map((d) => [/\((\w{6})\)$/.exec(d.label)![1]!, d.data]));
    };
    const ticked = () => page.locator(".job-picker input:checked").evaluateAll((inputs) => inputs.map((i) => (i as unknown as { value: string }).value));
    const chosen = await ticked();
    expect(new Set((await plotted()).keys())).toEqual(new Set(chosen.map((id) => id.slice(0, 6))));
    for (const id of chosen) expect((await plotted()).get(id.slice(0, 6))).toEqual(stepsOf(id));
    const unticked = await page.locator(".job-picker input:not(:checked)").evaluateAll((inputs) => inputs.map((i) => (i as unknown as { value: string }).value));
    expect(unticked.length).toBeGreaterThan(0);
    const drawnWith = (n: number) => page.waitForFunction((count) => {
      const text = document.querySelector(".chart[data-chart=iterations]")?.getAttribute("data-series");
      return text !== null && text !== undefined && (JSON.parse(text) as { datasets: unknown[] }).datasets.length === count * 2;
    }, n, WAIT);
    await page.locator(`.job-picker input[value="${unticked[0]}"]`).check();
    await drawnWith(chosen.length + 1);
    expect((await plotted()).get(unticked[0]!.slice(0, 6))).toEqual(stepsOf(unticked[0]!));
    expect(stepsOf(unticked[0]!).length).toBeGreaterThan(0);
    await page.locator(`.job-picker input[value="${chosen[0]}"]`).uncheck();
    await drawnWith(chosen.length);
    expect((await plotted()).has(chosen[0]!.slice(0, 6))).toBe(false);
    expect(await ticked()).toEqual(expect.arrayContaining([unticked[0], ...chosen.slice(1)]));

    await page.click('a[data-tab="leaderboard"]');
    await page.locator("[data-testid=leaderboard]").waitFor(WAIT);
    expect(await page.locator("[data-testid=leaderboard] h3").allTextContents()).toEqual(["fixture:flaky", "internal:multi_param", "internal:numeric_param"]);
    // Each arm's variant and its mean ± std over seeds (n), as leaderboard.csv has them.
    const board = csvRows(join(runDir, "leaderboard.csv"));
    const cells = await page.locator("[data-testid=leaderboard] tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "")));
    expect(cells.map((c) => [c[1], c[2], /\((\d+)\)$/.exec(c[4]!)?.[1]])).toEqual(board.map((r) => [r.trainer_id, r.variant, r.n]));

    // Compare: two trainers on the jobs both ran, the same figures as `trace-bench compare --by trainer`.
    await page.click('a[data-tab="compare"]');
    await page.locator("[data-testid=compare-table]").waitFor(WAIT);
    expect(await page.locator("[data-testid=compare-by]").inputValue()).toBe("trainer");
    const cli = await runCli(["compare", runDir, "--by", "trainer", "NoOpTrainer", "PrioritySearch", "--json"]);
    expect(cli.code, cli.stderr).toBe(0);
    const expected = JSON.parse(cli.stdout) as { tasks: { task_id: string; pairs: number }[]; overall: { pairs: number; ahead: string } };
    const compared = await page.locator("[data-testid=compare-table] tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "")));
    expect(compared.map((c) => [c[0], Number(c[1])])).toEqual([...expected.tasks.map((t) => [t.task_id, t.pairs]), ["overall", expected.overall.pairs]]);
    expect(compared.at(-1)![8]).toBe({ A: "NoOpTrainer", B: "PrioritySearch", tie: "tie" }[expected.overall.ahead]);
    expect(await page.locator("[data-testid=compare-verdict]").textContent()).toMatch(/over \d+ pairs \(permutation p = /);

    await page.click('a[data-tab="tokens"]');
    const byTrainer = page.locator('[data-audit="trainer"] tbody tr');
    await byTrainer.first().waitFor(WAIT);
    const calls = eventsOf(runDir).filter((e) => e.type === "LlmCallCompleted").length;
    const total = await byTrainer.last().locator("td").nth(1).textContent();
    expect(Number(total?.replace(/,/g, ""))).toBe(calls);
    expect(calls).toBeGreaterThan(0);
  }, 120_000);

  it("opens a job: its machine diagram with the path taken, its iterations, LLM calls (tokens, latency), evaluations and files", async () => {
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
    // What the job runs, its variant named as the job lines name it.
    expect(await page.locator("[data-testid=job-subject]").textContent()).toBe("internal:multi_param × PrioritySearch [ps_batches=1,ps_steps=3] · seed 1 · attempt 1");
    expect(await diagram.locator("g.node").count()).toBe(11);
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

    // Every LLM call's tokens and latency, as LlmCallCompleted recorded them.
    const completed = mine.filter((e) => e.type === "LlmCallCompleted");
    const n = (x: unknown) => Number(x).toLocaleString("en-US");
    expect(await page.locator("[data-testid=llm-calls] summary .tokens").allTextContents()).toEqual(
      completed.map((e) => `${n(e.data.prompt_tokens)} + ${n(e.data.completion_tokens)} = ${n(e.data.total_tokens)} tokens`),
    );
    expect(completed.every((e) => Number(e.data.total_tokens) > 0)).toBe(true);
    expect(await page.locator("[data-testid=llm-calls] summary .latency").allTextContents()).toEqual(completed.map((e) => `${n(e.data.latency_ms)} ms`));

    // Its evaluations, each with the feedback the guide gave.
    const evaluations = mine.filter((e) => e.type === "EvaluationCompleted");
    expect(evaluations.length).toBeGreaterThan(0);
    expect(evaluations.some((e) => String(e.data.feedback) !== "")).toBe(true);
    expect(await page.locator("[data-testid=evaluations] .evaluation pre").allTextContents()).toEqual(evaluations.map((e) => String(e.data.feedback) || "(no feedback)"));
    expect(await page.locator("[data-testid=evaluations] .evaluation b").allTextContents()).toEqual(evaluations.map((e) => String(e.data.phase)));

    // Its candidates, one row each in the order the log first names them, with their parents and evaluation counts.
    const named = mine.filter((e) => e.type === "CandidateEvaluated" || (e.type === "EvaluationCompleted" && e.data.candidate !== undefined));
    const ids = [...new Set(named.map((e) => String(e.data.candidate)))];
    const trained = mine.filter((e) => e.type === "CandidateEvaluated");
    expect(trained.length).toBeGreaterThan(0);
    const rows = page.locator("[data-testid=candidates] tbody tr");
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-candidate")))).toEqual(ids);
    const cells = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "")));
    for (const [i, id] of ids.entries()) {
      const own = trained.filter((e) => e.data.candidate === id);
      const parents = (own.find((e) => (e.data.parents as string[]).length > 0)?.data.parents as string[] | undefined) ?? [];
      expect(cells[i]![2], id).toBe(parents.length === 0 ? "—" : parents.map((p) => p.slice(0, 8)).join(" "));
      expect(cells[i]![3], id).toBe(String(own.length));
    }
    expect(cells[0]![1]).toBe("initial");
    // The search made children of recorded candidates.
    expect(trained.some((e) => (e.data.parents as string[]).length > 0 && ids.includes((e.data.parents as string[])[0]!))).toBe(true);
    expect(await page.locator("[data-testid=lineage]").textContent()).toMatch(/^lineage to the best: [0-9a-f]{8}( → [0-9a-f]{8})*$/);

    // Links to every file of the job; one followed serves that file.
    const jobFiles = (readdirSync(join(runDir, "jobs", spec.job_id), { recursive: true }) as string[])
      .filter((f) => !statSync(join(runDir, "jobs", spec.job_id, f)).isDirectory())
      .map((f) => `jobs/${spec.job_id}/${f}`);
    const links = page.locator("[data-testid=artifacts] a");
    expect(new Set(await links.allTextContents())).toEqual(new Set(jobFiles));
    const log = links.filter({ hasText: /\/stdout\.log$/ });
    const [tab] = await Promise.all([page.context().waitForEvent("page"), log.click()]);
    await tab.waitForLoadState();
    expect(new URL(tab.url()).pathname).toBe("/api/file");
    expect(await tab.locator("body").textContent()).toBe(readFileSync(join(runDir, "jobs", spec.job_id, "stdout.log"), "utf8"));
    await tab.close();
    await screenshot(page, "job-inspector", { readme: true });
    // The job machine as trace-bench draws it from `machines --json` (the README's Stately section shows it).
    await screenshot(page, "job-machine", { readme: true, element: diagram });

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
    const runId = runDir.split("/").at(-1)!;
    await page.goto(`${dashboard.origin}/#/run/${encodeURIComponent(runId)}`);
    // The page shows the command its Retry failed runs (a finished run has nothing to resume), as it
    // works from where the dashboard was started: a folder outside the clone, so by the launcher's path.
    await page.locator("[data-testid=retry-command]").waitFor(WAIT);
    expect(await page.locator("[data-testid=retry-command]").textContent()).toBe(
      `node ${CLI} run --config ${join(runDir, "meta", "config.snapshot.yaml")} --resume failed --run-id ${runId} --runs-dir ${join(dir, "runs")}`,
    );
    expect(await page.locator("[data-testid=resume-command]").count()).toBe(0);
    await page.click("[data-testid=retry-failed]");
    // The retried jobs fail again (the flaky task always does under NoOpTrainer): the run has a second invocation.
    await page.waitForFunction(() => /2 invocations/.test(document.querySelector(".run-header")?.textContent ?? "") && document.querySelector("[data-testid=run-status]")?.textContent === "finished", null, WAIT);
    const after = eventsOf(runDir);
    const second = after.filter((e) => e.type === "RunStarted")[1]!;
    expect(second.data.resume_mode).toBe("failed");
    expect(after.filter((e) => e.seq > second.seq && e.type === "JobQueued").map((e) => e.job_id).sort()).toEqual([...failedJobs].sort());
    expect(await page.locator("[data-testid=run-status]").textContent()).toBe("finished");
    // Retried from the run's own snapshot, the run keeps the name of the config that made it.
    expect(second.data.config_name).toBeUndefined();
    expect(await page.locator(".run-header [data-testid=config-name]").textContent()).toBe("matrix.yaml");
  }, 120_000);
});
