/**
 * Comparisons people can trust, end to end with the built CLI: a params sweep keeps its variants
 * apart in every report (checked against means computed here from results.csv), the closing block
 * shows the table, a run whose every job hits its budget still writes every file it names (its jobs
 * in aggregate.csv), and `compare` on two runs that differ only in the model (a scripted
 * OpenAI-compatible server answering each model differently) gives the paired difference per task
 * and overall with an interval and tests, on the jobs both ran.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, tempDir } from "../support/cli.js";
import { describeRun, runCliAsync } from "../support/crash-harness.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fake-openai-server.js";
import { csvRows } from "../support/run-dir.js";
import { xmlReply } from "../support/scripted-llm.js";

const cli = (args: readonly string[], env: NodeJS.ProcessEnv = {}) => runCliAsync(args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, timeoutMs: 120_000 });

const SWEEP = [
  "mode: stub",
  "seeds: [1, 2, 3, 4, 5]",
  "max_workers: 2",
  "tasks: [internal:numeric_param, internal:multi_param]",
  "trainers:",
  "  - id: PrioritySearch",
  "    params_variants: [{ps_steps: 1}, {ps_steps: 3}]",
  "",
].join("\n");

const meanOf = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

describe("a sweep of two ps_steps variants × 5 seeds", () => {
  let dir = "";
  let runDir = "";
  let stdout = "";
  let configPath = "";

  beforeAll(async () => {
    dir = tempDir("trace-bench-sweep-");
    configPath = join(dir, "sweep.yaml");
    writeFileSync(configPath, SWEEP);
    const r = await cli(["run", "--config", configPath, "--runs-dir", dir, "--run-id", "sweep"]);
    expect(r.code, describeRun("sweep", r)).toBe(0);
    stdout = r.stdout;
    runDir = join(dir, "sweep");
  }, 180_000);

  it("results.csv labels each job with its variant, after the original's 33 columns, and job lines name it", () => {
    const rows = csvRows(join(runDir, "results.csv"));
    const header = readFileSync(join(runDir, "results.csv"), "utf8").split("\r\n")[0]!.split(",");
    expect(header.indexOf("variant")).toBeGreaterThanOrEqual(33);
    expect(rows.map((r) => r.variant).sort()).toEqual([...Array(10).fill("ps_steps=1"), ...Array(10).fill("ps_steps=3")]);
    for (const label of ["ps_steps=1", "ps_steps=3"]) expect(stdout.split("\n").filter((l) => l.includes(`x PrioritySearch [${label}] (seed=`))).toHaveLength(10);
  });

  it("aggregate.csv, summary.json and leaderboard.csv have one row per task × variant, each with the mean of its 5 seeds", () => {
    const rows = csvRows(join(runDir, "results.csv"));
    const aggregate = csvRows(join(runDir, "aggregate.csv"));
    const leaderboard = csvRows(join(runDir, "leaderboard.csv"));
    const summary = JSON.parse(readFileSync(join(runDir, "summary.json"), "utf8")) as { aggregates: { task_id: string; variant: string; n: number; score_mean: number }[] };
    expect(aggregate).toHaveLength(4);
    expect(leaderboard).toHaveLength(4);
    expect(summary.aggregates).toHaveLength(4);
    for (const task of ["internal:numeric_param", "internal:multi_param"]) {
      for (const variant of ["ps_steps=1", "ps_steps=3"]) {
        const scores = rows.filter((r) => r.task_id === task && r.variant === variant).map((r) => Number(r.score_val));
        expect(scores).toHaveLength(5);
        const expected = meanOf(scores);
        const inAggregate = aggregate.filter((r) => r.task_id === task && r.variant === variant);
        const inLeaderboard = leaderboard.filter((r) => r.task_id === task && r.variant === variant);
        const inSummary = summary.aggregates.filter((r) => r.task_id === task && r.variant === variant);
        expect([inAggregate.length, inLeaderboard.length, inSummary.length]).toEqual([1, 1, 1]);
        expect(Number(inAggregate[0]!.n)).toBe(5);
        expect(Number(inAggregate[0]!.score_mean)).toBeCloseTo(expected, 12);
        expect(Number(inLeaderboard[0]!.score_mean)).toBeCloseTo(expected, 12);
        expect(inSummary[0]!.score_mean).toBeCloseTo(expected, 12);
        // A computed mean has no float noise: at most 15 significant digits.
        expect(inAggregate[0]!.score_mean!.replace(/^-|\.|e.*$/g, "").replace(/^0+/, "").length).toBeLessThanOrEqual(15);
        // Five seeds are enough for a bootstrap interval around the mean.
        expect(inAggregate[0]!.ci95_note).toBe("");
        expect(Number(inAggregate[0]!.score_ci95_low)).toBeLessThanOrEqual(expected);
        expect(Number(inAggregate[0]!.score_ci95_high)).toBeGreaterThanOrEqual(expected);
        // The leaderboard's score_val is the group's best seed; its rank comes from the mean.
        expect(Number(inLeaderboard[0]!.score_val)).toBe(Math.max(...scores));
      }
      const ranked = leaderboard.filter((r) => r.task_id === task);
      const order = [...ranked].sort((a, b) => Number(b.score_mean) - Number(a.score_mean));
      expect(ranked.map((r) => r.rank)).toEqual(order[0]!.score_mean === order[1]!.score_mean ? ["1", "1"] : ["1", "2"]);
      expect(ranked.map((r) => r.variant)).toEqual(order.map((r) => r.variant));
    }
  });

  it("the closing block shows the table: one line per task × trainer × variant with mean ± std (n), initial mean, best and interval", () => {
    const aggregate = csvRows(join(runDir, "aggregate.csv"));
    const lines = stdout.split("\n");
    const start = lines.indexOf("Scores over seeds (final score_val of jobs that ended ok or budget_exhausted):");
    expect(start).toBeGreaterThan(lines.findIndex((l) => l.startsWith("Run complete: ")));
    expect(lines[start + 1]).toMatch(/^\s+TASK\s+TRAINER\s+VARIANT\s+N\s+MEAN ± STD\s+INITIAL\s+BEST\s+95% CI$/);
    const table = lines.slice(start + 2, start + 6);
    for (const row of aggregate) {
      const line = table.find((l) => l.includes(row.task_id!) && l.includes(` ${row.variant} `));
      expect(line, `${row.task_id} ${row.variant}`).toBeDefined();
      // Rounded to 4 significant digits, as the job lines round scores.
      const four = (x: string) => String(Number(Number(x).toPrecision(4)));
      expect(line).toContain(` 5 `);
      expect(line!.replace(/\.0(?=\D|$)/g, "")).toContain(`${four(row.score_mean!)} ± ${four(row.score_std!)}`);
      expect(line).toMatch(/\[-?[\d.e-]+, -?[\d.e-]+\]$/);
    }
  });

  it("validate --strict --json names each job's variant", async () => {
    const r = await cli(["validate", "--config", configPath, "--strict", "--json", "--runs-dir", dir]);
    const doc = JSON.parse(r.stdout) as { jobs: { variant: string }[] };
    expect(doc.jobs.map((j) => j.variant).sort()).toEqual([...Array(10).fill("ps_steps=1"), ...Array(10).fill("ps_steps=3")]);
  });

  it("compare --by variant pairs the two variants on task and seed", async () => {
    const r = await cli(["compare", runDir, "--by", "variant", "ps_steps=3", "ps_steps=1", "--json"]);
    expect(r.code, describeRun("compare", r)).toBe(0);
    const doc = JSON.parse(r.stdout) as { overall: { pairs: number; mean_diff: number }; tasks: { task_id: string; pairs: number; mean_diff: number }[] };
    const rows = csvRows(join(runDir, "results.csv"));
    const score = (task: string, variant: string, seed: string) => Number(rows.find((r) => r.task_id === task && r.variant === variant && r.seed === seed)!.score_val);
    const seeds = ["1", "2", "3", "4", "5"];
    for (const t of doc.tasks) expect(t.mean_diff).toBeCloseTo(meanOf(seeds.map((s) => score(t.task_id, "ps_steps=3", s) - score(t.task_id, "ps_steps=1", s))), 12);
    expect(doc.overall.pairs).toBe(10);
  });

  it("replay rebuilds every report byte for byte, and verify passes", async () => {
    const before = ["results.csv", "aggregate.csv", "leaderboard.csv", "summary.json"].map((f) => readFileSync(join(runDir, f)));
    const replayed = await cli(["replay", runDir]);
    expect(replayed.code, describeRun("replay", replayed)).toBe(0);
    expect(["results.csv", "aggregate.csv", "leaderboard.csv", "summary.json"].map((f) => readFileSync(join(runDir, f)))).toEqual(before);
    const verified = await cli(["replay", "--verify", runDir]);
    expect(verified.code, describeRun("replay --verify", verified)).toBe(0);
  });
});

describe("compare --by trainer", () => {
  it("pairs two trainers on task and seed, each with its own variant", async () => {
    const dir = tempDir("trace-bench-by-trainer-");
    const configPath = join(dir, "trainers.yaml");
    writeFileSync(configPath, "mode: stub\nseeds: [1, 2, 3]\ntasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 2}]\n  - NoOpTrainer\n");
    const r = await cli(["run", "--config", configPath, "--runs-dir", dir, "--run-id", "two"]);
    expect(r.code, describeRun("run", r)).toBe(0);
    const compared = await cli(["compare", "two", "--runs-dir", dir, "--by", "trainer", "PrioritySearch", "NoOpTrainer", "--json"]);
    expect(compared.code, describeRun("compare", compared)).toBe(0);
    const doc = JSON.parse(compared.stdout) as { differing: string[]; paired_on: string[]; overall: { pairs: number; mean_diff: number; ci95: unknown; ci95_note: string } };
    expect(doc.differing).toEqual(["trainer", "variant"]);
    expect(doc.paired_on).toEqual(["task", "seed", "optimizer", "model"]);
    const rows = csvRows(join(dir, "two", "results.csv"));
    const score = (trainer: string, seed: string) => Number(rows.find((row) => row.trainer_id === trainer && row.seed === seed)!.score_val);
    expect(doc.overall.pairs).toBe(3);
    expect(doc.overall.mean_diff).toBeCloseTo(meanOf(["1", "2", "3"].map((seed) => score("PrioritySearch", seed) - score("NoOpTrainer", seed))), 12);
    // Three pairs are too few for a bootstrap interval.
    expect([doc.overall.ci95, doc.overall.ci95_note]).toEqual([null, "n too small"]);
    const unknown = await cli(["compare", "two", "--runs-dir", dir, "--by", "trainer", "PrioritySearch", "GEPA-Base"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("trainer 'GEPA-Base' has no finished job in");
  }, 120_000);
});

describe("a run whose every job hits its budget", () => {
  it("writes every file it names (the leaderboard as its header), and its jobs enter aggregate.csv with their scores and status", async () => {
    const dir = tempDir("trace-bench-budget-");
    const configPath = join(dir, "budget.yaml");
    writeFileSync(configPath, "mode: stub\nseeds: [1, 2]\nbudget: {max_tokens_per_job: 50}\ntasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 3}]\n");
    const text = await cli(["run", "--config", configPath, "--runs-dir", dir, "--run-id", "capped"]);
    const json = await cli(["run", "--config", configPath, "--runs-dir", dir, "--run-id", "capped-json", "--json"]);
    for (const r of [text, json]) expect(r.code, describeRun("run", r)).not.toBe(2);
    const runDir = join(dir, "capped");
    const rows = csvRows(join(runDir, "results.csv"));
    expect(rows.map((r) => r.status)).toEqual(["budget_exhausted", "budget_exhausted"]);
    // Every path the console names exists.
    const printed = text.stdout.split("\n").flatMap((l) => /^[A-Z][\w ]+: (\/.*)$/.exec(l)?.[1] ?? []);
    expect(printed.length).toBeGreaterThanOrEqual(7);
    for (const path of printed) expect(existsSync(path), path).toBe(true);
    // run --json's files, and the files index's canonical files.
    const doc = JSON.parse(json.stdout) as { files: Record<string, string> };
    for (const path of Object.values(doc.files)) expect(existsSync(path), path).toBe(true);
    const index = JSON.parse(readFileSync(join(runDir, "meta", "files_index.json"), "utf8")) as { canonical_files: Record<string, string> };
    for (const path of Object.values(index.canonical_files)) expect(existsSync(join(runDir, path)), path).toBe(true);
    expect(readFileSync(join(runDir, "leaderboard.csv"), "utf8").split("\r\n").filter(Boolean)).toHaveLength(1);
    const [group] = csvRows(join(runDir, "aggregate.csv"));
    expect(group).toMatchObject({ variant: "ps_steps=3", jobs: "2", statuses: "budget_exhausted=2", n: "2", ci95_note: "n too small" });
    expect(Number(group!.score_mean)).toBeCloseTo(meanOf(rows.map((r) => Number(r.score_val))), 12);
  }, 180_000);
});

describe("compare two runs that differ only in the model", () => {
  const servers: FakeOpenAiServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });

  it("prints the paired difference per task and overall, with an interval and tests, on the jobs both ran", async () => {
    // model-near proposes values near numeric_param's target 3.0, model-far further off; each
    // answer depends only on the request, so every run of a model gets the same answers.
    const s = await startFakeOpenAiServer([], {
      fallback: ((body: Record<string, unknown>) => {
        const h = [...JSON.stringify(body.messages)].reduce((a, c) => (a * 31 + c.charCodeAt(0)) >>> 0, 7);
        const spread = body.model === "model-near" ? 0.5 : 2;
        return xmlReply({ float0: 3 + spread * (((h % 200) - 100) / 100) });
      }) as never,
    });
    servers.push(s);
    const dir = tempDir("trace-bench-compare-");
    const runOf = async (model: string, seeds: string) => {
      const path = join(dir, `${model}.yaml`);
      writeFileSync(
        path,
        `mode: real\nllm: {model: ${model}, base_url: "${s.baseURL}", api_key_env: FAKE_KEY}\nseeds: [${seeds}]\nmax_workers: 2\ntasks: [internal:numeric_param, internal:multi_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 2}]\n`,
      );
      const r = await cli(["run", "--config", path, "--runs-dir", dir, "--run-id", model], { FAKE_KEY: "sk-test-compare", OPENAI_API_KEY: "" });
      expect(r.code, describeRun(model, r)).toBe(0);
      return join(dir, model);
    };
    // Seed 6 only in model-far's run: it has no partner and is left out.
    const near = await runOf("model-near", "1, 2, 3, 4, 5");
    const far = await runOf("model-far", "1, 2, 3, 4, 5, 6");
    const text = await cli(["compare", "model-near", "model-far", "--runs-dir", dir]);
    expect(text.code, describeRun("compare", text)).toBe(0);
    const json = await cli(["compare", near, far, "--json"]);
    expect(json.code, describeRun("compare --json", json)).toBe(0);
    type Figures = { pairs: number; mean_a: number; mean_b: number; mean_diff: number; ci95: [number, number] | null; sign_test: { p: number }; permutation: { p: number }; ahead: string };
    const doc = JSON.parse(json.stdout) as { differing: string[]; paired_on: string[]; unpaired: { a: number; b: number }; tasks: (Figures & { task_id: string })[]; overall: Figures; verdict: string };
    expect(doc.differing).toEqual(["model"]);
    expect(doc.paired_on).toEqual(["task", "seed", "trainer", "variant", "optimizer"]);
    expect(doc.unpaired).toEqual({ a: 0, b: 2 });

    // The same figures, computed here from the two results.csv files.
    const rowsNear = csvRows(join(near, "results.csv"));
    const rowsFar = csvRows(join(far, "results.csv"));
    const diffs = (task?: string) =>
      rowsNear.filter((r) => task === undefined || r.task_id === task).map((r) => Number(r.score_val) - Number(rowsFar.find((f) => f.task_id === r.task_id && f.seed === r.seed)!.score_val));
    expect(diffs().some((d) => d !== 0), "the two models' answers score differently").toBe(true);
    expect(doc.tasks.map((t) => t.task_id)).toEqual(["internal:multi_param", "internal:numeric_param"]);
    for (const t of doc.tasks) {
      expect(t.pairs).toBe(5);
      expect(t.mean_diff).toBeCloseTo(meanOf(diffs(t.task_id)), 12);
      expect(t.ci95).not.toBeNull();
      expect(t.ci95![0]).toBeLessThanOrEqual(t.mean_diff + 1e-12);
      expect(t.ci95![1]).toBeGreaterThanOrEqual(t.mean_diff - 1e-12);
      // Exact sign test: 2 · P(X ≤ min(pos, neg)), X ~ Binomial(non-zero pairs, ½).
      const d = diffs(t.task_id);
      const [pos, neg] = [d.filter((x) => x > 0).length, d.filter((x) => x < 0).length];
      const n = pos + neg;
      const choose = (k: number) => [...Array(k).keys()].reduce((c, i) => (c * (n - i)) / (i + 1), 1);
      const tail = [...Array(Math.min(pos, neg) + 1).keys()].reduce((sum, k) => sum + choose(k) / 2 ** n, 0);
      expect(t.sign_test.p).toBeCloseTo(n === 0 ? 1 : Math.min(1, 2 * tail), 12);
      expect(t.permutation.p).toBeGreaterThan(0);
      expect(t.permutation.p).toBeLessThanOrEqual(1);
    }
    expect(doc.overall.pairs).toBe(10);
    expect(doc.overall.mean_diff).toBeCloseTo(meanOf(diffs()), 12);
    expect(doc.overall.ahead).toBe(doc.overall.mean_diff > 0 ? "A" : doc.overall.mean_diff < 0 ? "B" : "tie");

    // The text form: a line per task and overall, the interval, both tests and the verdict.
    const lines = text.stdout.split("\n");
    expect(lines.some((l) => /^TASK\s+PAIRS\s+MEAN A\s+MEAN B\s+A − B\s+95% CI\s+SIGN p\s+PERM p\s+AHEAD$/.test(l))).toBe(true);
    for (const task of ["internal:multi_param", "internal:numeric_param", "overall"]) expect(lines.some((l) => l.startsWith(`${task} `) && /\[[^\]]+\]/.test(l))).toBe(true);
    expect(text.stdout).toContain("The arms differ in model (A: model-near; B: model-far).");
    expect(text.stdout).toContain(doc.verdict);
    // Reproducible: the same runs give the same document.
    const again = await cli(["compare", near, far, "--json"]);
    expect(again.stdout).toBe(json.stdout);
  }, 240_000);
});
