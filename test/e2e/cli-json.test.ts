/** Machine-readable output and housekeeping: --version, --json, `runs`, relative files_index paths, exit codes. */
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, doctoredRunDirs, REPO_ROOT, runCli, tempDir } from "../support/cli.js";
import { filesUnder, FIXTURE_ENV, singleRunDir } from "../support/run-dir.js";

function config(dir: string, yaml: string): string {
  const path = join(dir, "config.yaml");
  writeFileSync(path, yaml);
  return path;
}

const json = <T = Record<string, unknown>>(text: string): T => JSON.parse(text) as T;

describe("--version", () => {
  it("prints package.json's version, one line, exit 0", async () => {
    const version = json<{ version: string }>(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).version;
    const r = await runCli(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${version}\n`);
  });
});

describe("--json on the listing verbs", () => {
  it("list-tasks --json: one document with every task id and its suite", async () => {
    const text = (await runCli(["list-tasks"])).stdout.split("\n").filter(Boolean);
    const r = await runCli(["list-tasks", "--json"]);
    expect(r.code).toBe(0);
    const doc = json<{ tasks: { id: string; suite: string }[]; suites: string[]; empty_suites: string[] }>(r.stdout);
    expect(doc.tasks.map((t) => t.id)).toEqual(text);
    expect(doc.tasks.find((t) => t.id === "internal:numeric_param")?.suite).toBe("internal");
    expect(doc.suites).toContain("internal");
    expect(Array.isArray(doc.empty_suites)).toBe(true);
  });

  it("list-trainers --json [--all]: id, available, reason", async () => {
    const available = json<{ trainers: { id: string; available: boolean; reason: string | null }[]; hidden_unavailable: number }>((await runCli(["list-trainers", "--json"])).stdout);
    expect(available.trainers.every((t) => t.available && t.reason === null)).toBe(true);
    expect(available.trainers.map((t) => t.id)).toContain("PrioritySearch");
    const all = json<{ trainers: { id: string; available: boolean; reason: string | null }[]; hidden_unavailable: number }>((await runCli(["list-trainers", "--all", "--json"])).stdout);
    expect(all.hidden_unavailable).toBe(0);
    expect(all.trainers.length).toBe(available.trainers.length + available.hidden_unavailable);
    for (const t of all.trainers.filter((x) => !x.available)) expect(typeof t.reason).toBe("string");
  });

  it("validate --json: verdicts, jobs and manifest; exit 1 on a failed check; exit 2 with the problems on a config error", async () => {
    const runs = tempDir();
    const ok = await runCli(["validate", "--config", "configs/m1_matrix_smoke.yaml", "--strict", "--runs-dir", runs, "--json"]);
    expect(ok.code).toBe(0);
    const doc = json<{ ok: boolean; exit_code: number; errors: number; checks: { verdict: string; subject: string }[]; jobs: { job_id: string; seed: number }[]; manifest: string }>(ok.stdout);
    expect(doc).toMatchObject({ ok: true, exit_code: 0, errors: 0 });
    expect(doc.checks).toContainEqual(expect.objectContaining({ verdict: "OK", subject: "internal:numeric_param" }));
    expect(doc.jobs).toHaveLength(4);
    expect(doc.jobs[0]).toMatchObject({ job_id: "806f391306ae", seed: 123 });
    expect(doc.manifest.startsWith(runs)).toBe(true);

    const dir = tempDir();
    const bad = await runCli(["validate", "--config", config(dir, "tasks: [internal:numeric_param]\ntrainers: [NoSuchTrainer]\n"), "--json"]);
    expect(bad.code).toBe(1);
    const badDoc = json<{ ok: boolean; exit_code: number; errors: number; checks: { verdict: string; subject: string }[] }>(bad.stdout);
    expect(badDoc).toMatchObject({ ok: false, exit_code: 1, errors: 1 });
    expect(badDoc.checks).toContainEqual(expect.objectContaining({ verdict: "FAIL", subject: "trainer NoSuchTrainer" }));

    const broken = await runCli(["validate", "--config", config(dir, "tasks: [\n"), "--json"]);
    expect(broken.code).toBe(2);
    const brokenDoc = json<{ ok: boolean; exit_code: number; problems: string[] }>(broken.stdout);
    expect(brokenDoc).toMatchObject({ ok: false, exit_code: 2 });
    expect(brokenDoc.problems[0]).toMatch(/invalid YAML/);
    expect(broken.stderr).toMatch(/^trace-bench: config error: /);
  });
});

describe("run --json, aggregate.csv and files_index.json", () => {
  it("prints one JSON summary on stdout; aggregate.csv is written and rebuilt by replay byte for byte; files_index paths are relative", async () => {
    const runs = tempDir();
    const dir = tempDir();
    const cfg = config(dir, "seeds: [1, 2, 3]\ntasks: [internal:numeric_param]\ntrainers: [NoOpTrainer, PrioritySearch]\nps_steps: 1\n");
    const r = await runCli(["run", "--config", cfg, "--runs-dir", runs, "--json"]);
    expect(r.code).toBe(0);
    const runDir = singleRunDir(runs);
    const doc = json<{
      run_id: string;
      run_dir: string;
      status: string;
      exit_code: number;
      matrix_jobs: number;
      counts: Record<string, number>;
      files: Record<string, string>;
      llm: { calls: number; total_tokens: number; cost_usd: number | null };
    }>(r.stdout);
    expect(doc).toMatchObject({ run_dir: runDir, status: "finished", exit_code: 0, matrix_jobs: 6, counts: { ok: 6 } });
    expect(runDir.endsWith(doc.run_id)).toBe(true);
    expect(doc.files.aggregate_csv).toBe(join(runDir, "aggregate.csv"));
    expect(doc.files.results_csv).toBe(join(runDir, "results.csv"));
    expect(doc.llm.total_tokens).toBeGreaterThan(0);
    expect(doc.llm.cost_usd).toBe(0);

    const aggregate = readFileSync(join(runDir, "aggregate.csv"), "utf8").split("\r\n").filter(Boolean);
    expect(aggregate[0]!.split(",").slice(0, 7)).toEqual(["task_id", "suite", "trainer_id", "variant", "resolved_optimizer", "llm_model", "jobs"]);
    expect(aggregate).toHaveLength(3);
    const header = aggregate[0]!.split(",");
    expect(["jobs", "n"].map((c) => aggregate[1]!.split(",")[header.indexOf(c)])).toEqual(["3", "3"]);
    const summary = json<{ aggregates: { n: number; score_mean: number }[] }>(readFileSync(join(runDir, "summary.json"), "utf8"));
    expect(summary.aggregates.map((a) => a.n)).toEqual([3, 3]);

    const index = json<{ run_dir: string; canonical_files: Record<string, string>; notes: { event_log: string }; jobs: { files: Record<string, string> }[] }>(
      readFileSync(join(runDir, "meta/files_index.json"), "utf8"),
    );
    expect(index.run_dir).toBe(".");
    expect(index.notes.event_log).toBe("events.db");
    for (const path of [...Object.values(index.canonical_files), ...index.jobs.flatMap((j) => Object.values(j.files))]) {
      expect(path.startsWith("/") || path.startsWith("runs") || path.includes("..")).toBe(false);
      if (!path.endsWith("/tb") && !path.includes("state") && path !== "meta/files_index.json") expect(() => readFileSync(join(runDir, path)), path).not.toThrow();
    }

    const live = filesUnder(runDir);
    expect((await runCli(["replay", runDir])).code).toBe(0);
    expect(filesUnder(runDir)).toEqual(live);
  });
});

describe("trace-bench runs", () => {
  it("lists a finished and an interrupted run (a running one while it runs), in nested folders; a damaged log is skipped with a warning", async () => {
    const root = tempDir();
    const dir = tempDir();
    // A finished run two folders down.
    const finishedRuns = join(root, "team", "finished");
    const done = await runCli(["run", "--config", "configs/smoke.yaml", "--runs-dir", finishedRuns]);
    expect(done.code).toBe(0);
    const finishedDir = singleRunDir(finishedRuns);

    // An interrupted run: SIGINT after the first job; `runs` asked while it runs says running.
    const interruptedRuns = join(root, "interrupted");
    // Jobs long enough that some still wait in the queue while `runs` starts on a busy machine (3 s after the first result).
    const cfg = config(dir, "seeds: [1, 2, 3, 4, 5, 6, 7, 8]\nmax_workers: 2\ntasks:\n  - {id: fixture:sleep, eval_kwargs: {delay_ms: 1500}}\ntrainers: [NoOpTrainer]\n");
    let whileRunning: string | undefined;
    let asked = false;
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, "run", "--config", cfg, "--runs-dir", interruptedRuns], { cwd: REPO_ROOT, env: { ...process.env, ...FIXTURE_ENV } });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (!asked && out.includes("[1/8]")) {
          asked = true;
          // Awaited, not spawnSync (which blocks the test worker); the run is interrupted once `runs` has answered.
          runCli(["runs", "--runs-dir", interruptedRuns, "--json"]).then((r) => {
            whileRunning = r.stdout;
            child.kill("SIGINT");
          }, reject);
        }
      });
      child.on("error", reject);
      child.on("exit", resolve);
    });
    expect(code).toBe(130);
    const running = json<{ runs: { status: string; jobs: Record<string, number>; writer: { pid: number } | null }[] }>(whileRunning!).runs[0]!;
    expect(running).toMatchObject({ status: "running" });
    // Jobs without a result wait in the queue or are being run: none is "not executed" while the run runs.
    expect(running.jobs.not_executed).toBeUndefined();
    expect(running.jobs.queued).toBeGreaterThan(0);
    expect(Object.entries(running.jobs).filter(([k]) => k !== "matrix").reduce((n, [, v]) => n + v, 0)).toBe(8);
    const interruptedDir = singleRunDir(interruptedRuns);

    // A damaged log: a copy of the finished run with its events.db overwritten.
    const damaged = join(root, "damaged", "r1");
    mkdirSync(join(root, "damaged"), { recursive: true });
    cpSync(finishedDir, damaged, { recursive: true });
    writeFileSync(join(damaged, "events.db"), "not a database");
    doctoredRunDirs.add(damaged);

    const r = await runCli(["runs", "--runs-dir", root, "--json"]);
    expect(r.code).toBe(0);
    const doc = json<{
      runs: { run_id: string; run_dir: string; status: string; crashed: boolean; config_hash: string; jobs: Record<string, number>; tokens: { total_tokens: number }; cost_usd: number | null; started_at: string }[];
      warnings: string[];
    }>(r.stdout);
    expect(doc.runs.map((x) => [x.run_dir, x.status])).toEqual([
      [finishedDir, "finished"],
      [interruptedDir, "interrupted"],
    ]);
    const [finished, interrupted] = doc.runs;
    expect(finished).toMatchObject({ crashed: false, jobs: { matrix: 1, ok: 1 }, cost_usd: 0 });
    expect(finished!.config_hash).toMatch(/^[0-9a-f]{16}$/);
    expect(finished!.tokens.total_tokens).toBeGreaterThan(0);
    expect(finished!.started_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(interrupted!.crashed).toBe(false);
    expect(interrupted!.jobs.matrix).toBe(8);
    expect(interrupted!.jobs.cancelled ?? 0).toBeGreaterThan(0);
    // Once stopped, the jobs that never ran are not executed, no longer queued.
    expect(interrupted!.jobs.not_executed ?? 0).toBeGreaterThan(0);
    expect(interrupted!.jobs.queued).toBeUndefined();
    expect(doc.warnings).toHaveLength(1);
    expect(doc.warnings[0]).toContain(damaged);
    expect(r.stderr).toContain(`trace-bench: warning: skipping ${damaged}`);

    const text = await runCli(["runs", "--runs-dir", root]);
    expect(text.code).toBe(0);
    const lines = text.stdout.split("\n").filter(Boolean);
    expect(lines[0]).toMatch(/^RUN\s+STATUS\s+MODE\s+STARTED/);
    // A stub run says so beside its $0.
    expect(lines[1]).toMatch(/ finished +stub .* 1 ok \(of 1\) .* \$0\.0000 /);
    expect(lines[2]).toMatch(/ interrupted /);

    expect((await runCli(["runs", "--runs-dir", join(root, "nothing-here")])).stdout).toBe(`No runs under ${join(root, "nothing-here")}\n`);
  });
});

describe("user errors: one line, no stack trace", () => {
  it("an unloadable TRACE_BENCH_TASK_MODULES module exits 2 with one line", async () => {
    const dir = tempDir();
    const broken = join(dir, "broken.mjs");
    writeFileSync(broken, "export default {\n");
    for (const path of [broken, join(dir, "missing.mjs")]) {
      const r = await runCli(["list-tasks"], { env: { TRACE_BENCH_TASK_MODULES: path } });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^trace-bench: TRACE_BENCH_TASK_MODULES: cannot load '${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}': [^\\n]+\\n$`));
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    const notSuite = join(dir, "three.mjs");
    writeFileSync(notSuite, "export default 3;\n");
    const r = await runCli(["list-tasks"], { env: { TRACE_BENCH_TASK_MODULES: notSuite } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`trace-bench: TRACE_BENCH_TASK_MODULES: '${notSuite}' must default-export a task suite {name, list(), load()}\n`);
  });
});
