import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI, REPO_ROOT, runCli, tempDir } from "../support/cli.js";
import { csvRows, eventsOf, filesUnder, FIXTURE_ENV, singleRunDir } from "../support/run-dir.js";

/** python3: argv[1] is a YAML file that PyYAML loads and dumps to the same bytes; each further argv is a state, `<path>.yaml` being PyYAML's dump of `<path>.json`. */
const PYYAML_CHECK = [
  "import json, sys, yaml",
  "def same(path, value):",
  "    text = open(path, encoding='utf-8').read()",
  "    assert yaml.safe_dump(value, sort_keys=False) == text, path",
  "same(sys.argv[1], yaml.safe_load(open(sys.argv[1], encoding='utf-8')))",
  "for state in sys.argv[2:]:",
  "    same(state + '.yaml', json.load(open(state + '.json', encoding='utf-8')))",
  "print(len(sys.argv) - 1, 'files as PyYAML writes them')",
].join("\n");

function config(dir: string, yaml: string): string {
  const path = join(dir, "config.yaml");
  writeFileSync(path, yaml);
  return path;
}

const run = (args: readonly string[]) => runCli(["run", ...args], { env: FIXTURE_ENV });

const seeds = (n: number) => `[${Array.from({ length: n }, (_, i) => i + 1).join(", ")}]`;

/** Starts `trace-bench run` and resolves with its exit code once `onOutput` has been called for each chunk. */
function spawnRun(args: readonly string[], onStdout: (text: string, child: ReturnType<typeof spawn>) => void): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, "run", ...args], { cwd: REPO_ROOT, env: { ...process.env, ...FIXTURE_ENV } });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      onStdout(stdout, child);
    });
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout }));
  });
}

describe("trace-bench run", () => {
  it("runs the smoke config end to end: PrioritySearch ends on the best it reported, full run directory, replay byte for byte", async () => {
    const runs = tempDir();
    const r = await runCli(["run", "--config", "configs/smoke.yaml", "--runs-dir", runs]);
    expect(r.code).toBe(0);
    const runDir = singleRunDir(runs);
    expect(r.stdout).toContain(`Run complete: ${runDir.split("/").pop()}`);
    // A stub run says what its scores mean, on the console and in the summary.
    expect(r.stdout).toMatch(/^Mode stub: scores rank the search procedures against the stub LLM's seeded proposals, not optimizers or models/m);
    expect(JSON.parse(readFileSync(join(runDir, "summary.json"), "utf8")).llm_note).toMatch(/^mode stub: no model was called/);
    expect(r.stdout).toContain(`Results: ${join(runDir, "results.csv")}`);
    for (const f of ["meta/config.snapshot.yaml", "meta/env.json", "meta/git.json", "meta/manifest.json", "meta/files_index.json", "results.csv", "summary.json", "aggregate.csv", "events.db", "events.jsonl"]) {
      expect(existsSync(join(runDir, f)), f).toBe(true);
    }
    for (const f of ["job_meta.json", "results.json", "events.jsonl", "stdout.log", "tb", "artifacts"]) expect(existsSync(join(runDir, "jobs", "806f391306ae", f)), f).toBe(true);
    const [row] = csvRows(join(runDir, "results.csv"));
    expect(row).toMatchObject({ job_id: "806f391306ae", status: "ok", task_id: "internal:numeric_param", trainer_id: "PrioritySearch", score_val_initial: "-3.0", tokens_estimated: "True" });
    // The final evaluation is the best the search reported (a wrong exploit step breaks this; any search beats −3).
    const iterations = eventsOf(runDir).filter((e) => e.type === "IterationCompleted");
    expect(iterations).toHaveLength(1);
    expect(Number(row!.score_val)).toBe(iterations[0]!.data.best_score);
    expect(Number(row!.llm_calls)).toBe(4);
    expect(Number(row!.total_tokens)).toBeGreaterThan(0);

    const manifest = JSON.parse(readFileSync(join(runDir, "meta/manifest.json"), "utf8")) as { config_hash: string };
    expect(manifest.config_hash).toMatch(/^[0-9a-f]{16}$/);

    // Each state's YAML is what PyYAML's safe_dump writes for its JSON (python3 loads and dumps it); the
    // config snapshot is what safe_dump writes for what PyYAML loads from it.
    const states = ["initial", "final", "best"].map((which) => join(runDir, "jobs", "806f391306ae", "artifacts", `${which}_state`));
    const pyyaml = execFileSync("python3", ["-c", PYYAML_CHECK, join(runDir, "meta", "config.snapshot.yaml"), ...states], { encoding: "utf8" });
    expect(pyyaml).toBe("4 files as PyYAML writes them\n");
    expect(readFileSync(`${states[1]}.yaml`, "utf8")).toContain('  value: "');

    const live = filesUnder(runDir);
    const replay = await runCli(["replay", runDir]);
    expect(replay.code).toBe(0);
    expect(filesUnder(runDir)).toEqual(live);

    const llmEvents = eventsOf(runDir).filter((e) => e.type === "LlmCallCompleted");
    expect(llmEvents).toHaveLength(4);
    expect(llmEvents.every((e) => e.data.role === "optimizer" && e.data.estimated === true)).toBe(true);
  });

  it("a run saves the writer's state; replay rewrites damaged and missing files, keeps what the log does not produce and says so; --prune moves it aside", async () => {
    const dir = tempDir();
    const cfg = config(dir, `tasks: [internal:numeric_param]\ntrainers: [NoOpTrainer]\nseeds: ${seeds(3)}\n`);
    expect((await run(["--config", cfg, "--runs-dir", dir])).code).toBe(0);
    const runDir = singleRunDir(dir);
    // The writer saved its state for the next invocation, level with the whole log.
    const db = new Database(join(runDir, "events.db"), { readonly: true });
    try {
      expect(db.prepare("SELECT seq FROM snapshots WHERE name = 'writer-state'").pluck().get()).toBe(db.prepare("SELECT MAX(seq) FROM events").pluck().get());
    } finally {
      db.close();
    }
    const live = filesUnder(runDir);
    const [jobId, secondJobId] = csvRows(join(runDir, "results.csv")).map((r) => r.job_id);
    writeFileSync(join(runDir, "results.csv"), "damaged");
    rmSync(join(runDir, "jobs", secondJobId!), { recursive: true }); // its mirror, files and folders
    rmSync(join(runDir, "jobs", jobId!, "artifacts", "best_state.yaml"));
    // A user's notes and plots, a note in a job's folder, a folder of a job the log does not know.
    writeFileSync(join(runDir, "NOTES.md"), "why this run");
    mkdirSync(join(runDir, "plots"));
    writeFileSync(join(runDir, "plots", "curve.svg"), "<svg/>");
    writeFileSync(join(runDir, "jobs", jobId!, "artifacts", "notes.txt"), "not from the log");
    mkdirSync(join(runDir, "jobs", "000000000000"), { recursive: true });
    writeFileSync(join(runDir, "jobs", "000000000000", "results.json"), "{}");
    const strays = new Map([
      ["NOTES.md", "why this run"],
      ["jobs/000000000000/results.json", "{}"],
      [`jobs/${jobId}/artifacts/notes.txt`, "not from the log"],
      ["plots/curve.svg", "<svg/>"],
    ]);
    const replay = await runCli(["replay", runDir]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(filesUnder(runDir)).toEqual(new Map([...live, ...strays]));
    expect(replay.stdout).toContain(`Kept 4 entries the event log does not produce (left as they are): NOTES.md, jobs/000000000000/, jobs/${jobId}/artifacts/notes.txt, plots/; `);
    expect(replay.stdout).toContain(`replay --prune ${runDir}' moves them to ${runDir}/.replay-strays/<timestamp>/`);
    // Empty folders the run makes (each job's tb/) are kept.
    expect(existsSync(join(runDir, "jobs", jobId!, "tb"))).toBe(true);
    expect(existsSync(join(runDir, "jobs", secondJobId!, "tb"))).toBe(true);

    const pruned = await runCli(["replay", "--prune", runDir]);
    expect(pruned.code, pruned.stderr).toBe(0);
    const aside = /^Moved 4 entries the event log does not produce to (.*)\/: NOTES\.md, /m.exec(pruned.stdout)?.[1];
    expect(aside, pruned.stdout).toMatch(new RegExp(`^${runDir}/\\.replay-strays/[0-9TZ.-]+$`));
    expect(filesUnder(aside!)).toEqual(strays);
    expect(new Map([...filesUnder(runDir)].filter(([f]) => !f.startsWith(".replay-strays/")))).toEqual(live);
    // Nothing left to keep: a further replay says nothing about strays.
    // (That the log still verifies is the tier's after-all `replay --verify` of every run.)
    const quiet = await runCli(["replay", runDir]);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).not.toContain("does not produce");
  });

  it("scores NoOpTrainer jobs, fails a task without trainable parameters, and exits 1", async () => {
    const dir = tempDir();
    const cfg = config(dir, "tasks: [internal:numeric_param, internal:multi_param, example:greeting_stub, internal:non_trainable]\ntrainers: [NoOpTrainer]\n");
    const r = await run(["--config", cfg, "--runs-dir", dir]);
    expect(r.code).toBe(1);
    const rows = csvRows(join(singleRunDir(dir), "results.csv"));
    expect(rows.map((x) => [x.task_id, x.status, x.score_val_initial, x.score_val])).toEqual([
      ["internal:numeric_param", "ok", "-3.0", "-3.0"],
      ["internal:multi_param", "ok", "-1.0", "-1.0"],
      ["trace_examples:greeting_stub", "ok", "1.0", "1.0"],
      ["internal:non_trainable", "failed", "", ""],
    ]);
    expect(rows[3]!.feedback).toBe("no_trainable_parameters");
    const history = readFileSync(join(singleRunDir(dir), "jobs", rows[0]!.job_id!, "artifacts", "state_history.jsonl"), "utf8").trim().split("\n");
    expect(history.map((l) => (JSON.parse(l) as { kind: string }).kind)).toEqual(["initial", "iteration", "final", "best"]);
  });

  it("rejects bad flags and bad configs with exit 2", async () => {
    const dir = tempDir();
    const cfg = config(dir, "tasks: [internal:numeric_param]\ntrainers: [NoOpTrainer]\n");
    const zeroWorkers = await run(["--config", cfg, "--max-workers", "0"]);
    expect(zeroWorkers.stderr).toContain("--max-workers must be a whole number ≥ 1, got '0'");
    expect(zeroWorkers.code).toBe(2);
    expect((await run(["--config", cfg, "--resume", "sometimes"])).code).toBe(2);
    expect((await run(["--config", cfg, "--job-timeout", "soon"])).stderr).toContain("--job-timeout must be a number of seconds from 0 to 2147483");
    const bad = config(dir, "tasks: [internal:numeric_param]\nresume: sometimes\n");
    const r = await run(["--config", bad, "--runs-dir", dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("resume: expected one of auto, failed, none, found \"sometimes\"");
  });
});

describe("a run whose jobs are ok or skipped", () => {
  // One run, then the same config again: the exit code and skip rows of the first, and the second not resuming it.
  let plain: string;
  let first: Awaited<ReturnType<typeof run>>;
  let second: Awaited<ReturnType<typeof run>>;
  beforeAll(async () => {
    plain = tempDir();
    const cfg = config(plain, "tasks: [internal:numeric_param, fixture:unavailable]\ntrainers: [NoOpTrainer]\n");
    first = await run(["--config", cfg, "--runs-dir", plain]);
    second = await run(["--config", cfg, "--runs-dir", plain]);
  });

  it("exits 0 when every job is ok or skipped, and records skips", () => {
    expect(first.code, first.stderr).toBe(0);
    const [runDir] = readdirSync(plain).filter((name) => first.stdout.includes(`Run complete: ${name}`));
    expect(csvRows(join(plain, runDir!, "results.csv")).map((x) => [x.status, x.feedback])).toEqual([
      ["ok", "train_dataset: mean over 1 examples. target=3.0"],
      ["skipped", "fixture tool is not installed on this machine"],
    ]);
  });

  it("without a run_id or --run-id a finished run is not resumed: the same config again is a new run", () => {
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).not.toContain("Resuming");
    expect(readdirSync(plain).filter((name) => existsSync(join(plain, name, "events.db")))).toHaveLength(2);
  });
});

describe("resume", () => {
  const mixed = "tasks: [internal:numeric_param, fixture:flaky, internal:multi_param]\ntrainers: [NoOpTrainer]\n";

  function attemptsByJob(runDir: string): Record<string, number[]> {
    const out: Record<string, number[]> = {};
    for (const e of eventsOf(runDir)) if (e.type === "JobQueued") (out[e.job_id!] ??= []).push(e.data.attempt as number);
    return out;
  }

  it("auto (the default) reuses ok jobs and re-runs failed ones; each job stays once in the reports", async () => {
    const dir = tempDir();
    const cfg = config(dir, mixed);
    expect((await run(["--config", cfg, "--runs-dir", dir, "--run-id", "r1"])).code).toBe(1);
    const again = await run(["--config", cfg, "--runs-dir", dir, "--run-id", "r1"]);
    expect(again.stdout).toContain("Resuming r1: 2/3 jobs done");
    const attempts = Object.values(attemptsByJob(join(dir, "r1"))).map((a) => a.join(","));
    expect(attempts.sort()).toEqual(["1", "1", "1,2"]);
    expect(csvRows(join(dir, "r1", "results.csv"))).toHaveLength(3);
    const started = eventsOf(join(dir, "r1")).filter((e) => e.type === "RunStarted").map((e) => e.data.invocation);
    expect(started).toEqual([1, 2]);
  });

  it("failed re-runs only failed jobs; none and --force re-run everything; the files each re-run leaves are what replay rebuilds", async () => {
    const dir = tempDir();
    const cfg = config(dir, mixed);
    const runDir = join(dir, "r");
    /** Every file the run left, as replay rebuilds it from the log (a reopened run's settled jobs are folded again from the log when they run again). */
    const expectReplayedAsLeft = async () => {
      const live = filesUnder(runDir);
      expect((await runCli(["replay", runDir])).code).toBe(0);
      expect(filesUnder(runDir)).toEqual(live);
    };
    await run(["--config", cfg, "--runs-dir", dir, "--run-id", "r"]);
    await run(["--config", cfg, "--runs-dir", dir, "--run-id", "r", "--resume", "failed"]);
    expect(Object.values(attemptsByJob(runDir)).map((a) => a.length).sort()).toEqual([1, 1, 2]);
    await expectReplayedAsLeft();
    await run(["--config", cfg, "--runs-dir", dir, "--run-id", "r", "--resume", "none"]);
    expect(Object.values(attemptsByJob(runDir)).map((a) => a.length).sort()).toEqual([2, 2, 3]);
    await expectReplayedAsLeft();
    await run(["--config", cfg, "--runs-dir", dir, "--run-id", "r", "--force"]);
    expect(Object.values(attemptsByJob(runDir)).map((a) => a.length).sort()).toEqual([3, 3, 4]);
    expect(csvRows(join(runDir, "results.csv"))).toHaveLength(3);
    await expectReplayedAsLeft();
    // Each job's log holds the lines of every attempt.
    for (const [jobId, attempts] of Object.entries(attemptsByJob(runDir))) {
      const log = readFileSync(join(runDir, "jobs", jobId, "stdout.log"), "utf8");
      for (const attempt of attempts) expect(log, `${jobId} attempt ${attempt}`).toContain(`attempt ${attempt}`);
    }
  });

  it("a config run_id and --run-id choose the directory", async () => {
    const dir = tempDir();
    const cfg = config(dir, `run_id: from-config\n${mixed}`);
    await run(["--config", cfg, "--runs-dir", dir]);
    expect(existsSync(join(dir, "from-config", "events.db"))).toBe(true);
    await run(["--config", cfg, "--runs-dir", dir, "--run-id", "from-flag"]);
    expect(existsSync(join(dir, "from-flag", "events.db"))).toBe(true);

  });

  it("Ctrl-C cancels running jobs, exits 130, and the next run resumes the same run by its config", async () => {
    const dir = tempDir();
    const cfg = config(dir, `seeds: ${seeds(8)}\nmax_workers: 2\ntasks:\n  - {id: fixture:sleep, eval_kwargs: {delay_ms: 120}}\ntrainers: [NoOpTrainer]\n`);
    let sent = false;
    const first = await spawnRun(["--config", cfg, "--runs-dir", dir], (out, child) => {
      if (!sent && out.includes("[1/8]")) {
        sent = true;
        child.kill("SIGINT");
      }
    });
    expect(first.code).toBe(130);
    expect(first.stdout).toMatch(/Run interrupted: \S+ \(\d\/8 jobs done/);
    const runDir = singleRunDir(dir);
    const events = eventsOf(runDir);
    expect(events.at(-1)!.type).toBe("RunInterrupted");
    const cancelled = events.filter((e) => e.type === "JobFinished" && e.data.status === "cancelled");
    expect(cancelled.length).toBeGreaterThan(0);
    // The interruption's record agrees with the log: the cancelled jobs were running, and only
    // jobs without any outcome are listed as not run (the fibers of cancelled jobs never report one).
    const interrupted = events.at(-1)!.data as { running_jobs: string[]; not_run: Record<string, string> };
    expect(new Set(interrupted.running_jobs)).toEqual(new Set(cancelled.map((e) => e.job_id)));
    const finished = new Set(events.filter((e) => e.type === "JobFinished").map((e) => e.job_id));
    const matrix = (events[0]!.data as { matrix: { job_id: string }[] }).matrix.map((spec) => spec.job_id);
    expect(Object.keys(interrupted.not_run).sort()).toEqual(matrix.filter((id) => !finished.has(id)).sort());
    expect(new Set(Object.values(interrupted.not_run))).toEqual(new Set(["interrupted_before_start"]));

    const second = await run(["--config", cfg, "--runs-dir", dir]);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(new RegExp(`Resuming ${runDir.split("/").pop()}: [1-7]/8 jobs done`));
    const rows = csvRows(join(runDir, "results.csv"));
    expect(rows).toHaveLength(8);
    expect(new Set(rows.map((r) => r.job_id)).size).toBe(8);
    expect(rows.every((r) => r.status === "ok")).toBe(true);
  });

  it("a second Ctrl-C exits at once and still leaves a log the next run completes", async () => {
    const dir = tempDir();
    const cfg = config(dir, `seeds: ${seeds(4)}\nmax_workers: 2\ntasks:\n  - {id: fixture:sleep, eval_kwargs: {delay_ms: 150}}\ntrainers: [NoOpTrainer]\n`);
    let sent = false;
    const first = await spawnRun(["--config", cfg, "--runs-dir", dir], (out, child) => {
      if (!sent && out.includes("[1/4]")) {
        sent = true;
        child.kill("SIGINT");
        child.kill("SIGINT");
      }
    });
    expect(first.code).toBe(130);
    const second = await run(["--config", cfg, "--runs-dir", dir]);
    expect(second.code).toBe(0);
    expect(csvRows(join(singleRunDir(dir), "results.csv")).map((r) => r.status)).toEqual(["ok", "ok", "ok", "ok"]);
  });
});

describe("timeouts, fail-fast and parallelism", () => {
  it("a job timeout interrupts a hanging job and kills the child process it started", async () => {
    const dir = tempDir();
    const pidFile = join(dir, "child.pid");
    const cfg = config(dir, `tasks:\n  - {id: fixture:hang_child, eval_kwargs: {pid_file: ${JSON.stringify(pidFile)}}}\n  - internal:numeric_param\ntrainers: [NoOpTrainer]\n`);
    const r = await run(["--config", cfg, "--runs-dir", dir, "--job-timeout", "1"]);
    expect(r.code).toBe(1);
    const rows = csvRows(join(singleRunDir(dir), "results.csv"));
    expect(rows.map((x) => x.status)).toEqual(["timeout", "ok"]);
    expect(rows[0]!.feedback).toMatch(/^job_timeout: exceeded 1s/);
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(() => process.kill(pid, 0)).toThrow(); // the child is gone
  });

  it("the config's job_timeout applies when no flag is given", async () => {
    const dir = tempDir();
    const cfg = config(dir, `job_timeout: 0.5\ntasks:\n  - {id: fixture:sleep, eval_kwargs: {delay_ms: 400}}\ntrainers: [NoOpTrainer]\n`);
    await run(["--config", cfg, "--runs-dir", dir]);
    expect(csvRows(join(singleRunDir(dir), "results.csv"))[0]!.status).toBe("timeout");
  });

  it("fail_fast stops starting jobs after the first failure", async () => {
    const dir = tempDir();
    const cfg = config(dir, "fail_fast: true\ntasks: [internal:numeric_param, fixture:flaky, internal:multi_param, internal:code_param]\ntrainers: [NoOpTrainer]\n");
    const r = await run(["--config", cfg, "--runs-dir", dir]);
    expect(r.code).toBe(1);
    const runDir = singleRunDir(dir);
    expect(csvRows(join(runDir, "results.csv")).map((x) => x.status)).toEqual(["ok", "failed"]);
    const manifest = JSON.parse(readFileSync(join(runDir, "meta/manifest.json"), "utf8")) as { jobs: { status: string; skip_reason?: string }[] };
    expect(manifest.jobs.map((j) => [j.status, j.skip_reason])).toEqual([
      ["ok", undefined],
      ["failed", undefined],
      ["not_executed", "fail_fast_stopped"],
      ["not_executed", "fail_fast_stopped"],
    ]);
  });

  it("a parallel run produces the same job rows as a serial one", async () => {
    const yaml = `seeds: ${seeds(3)}\ntasks: [internal:numeric_param, internal:multi_param, example:greeting_stub, fixture:flaky]\ntrainers: [NoOpTrainer]\n`;
    const rowsFor = async (workers: number) => {
      const dir = tempDir();
      await run(["--config", config(dir, yaml), "--runs-dir", dir, "--run-id", "same", "--max-workers", String(workers)]);
      return csvRows(join(dir, "same", "results.csv")).map((r) => ({ ...r, time_seconds: "", feedback: r.feedback!.replace(/\n.*$/s, "") }));
    };
    const serial = await rowsFor(1);
    expect(serial).toHaveLength(12);
    expect(await rowsFor(4)).toEqual(serial);
  });
});
