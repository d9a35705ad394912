/**
 * LLM4AD end to end: the bundled tasks run with PrioritySearch and GEPA-Base in mode stub through
 * the python3 worker pool, score their templates as benchmarks/llm4ad/README.md documents, and no
 * python process outlives the run, whether it ends, is interrupted or is killed.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { descendsFrom, processesNamed } from "../support/process-names.js";
import { childrenOf, isRunning, until } from "../support/processes.js";
import { CLI, REPO_ROOT, runCli, tempDir } from "../support/cli.js";
import { csvRows, eventsOf, singleRunDir } from "../support/run-dir.js";

const workersOf = (pid: number) => childrenOf(pid, "trace_bench_worker.py");
/** Live `sleep <seconds>` processes on the machine. */
const sleepers = (seconds: string) =>
  readdirSync("/proc").filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8") === `sleep\0${seconds}\0`;
    } catch {
      return false;
    }
  });

/** The template scores benchmarks/llm4ad/README.md documents (measured with its check_tasks.py). */
const DOCUMENTED_TEMPLATE_SCORES: Record<string, string> = {
  "llm4ad:online_bin_packing_local": "-214.4",
  "llm4ad:optimization/tsp_construct": "-5.560662347651679",
  "llm4ad:optimization/knapsack_construct": "467.65625", // +(mean packed value); upstream_sign: true gives upstream's −
  "llm4ad:optimization/set_cover_construct": "-12.5",
  "llm4ad:circle_packing": "2.1666666645",
  "llm4ad:science_discovery/oscillator_fit": "-0.027045608348196488",
};

describe("LLM4AD", () => {
  it("configs/llm4ad_smoke.yaml: every job ok, templates score as documented, searches improve, a second run is identical", async () => {
    const dir = tempDir();
    const first = await runCli(["run", "--config", "configs/llm4ad_smoke.yaml", "--runs-dir", dir]);
    expect(first.code, first.stderr).toBe(0);
    const rows = csvRows(join(singleRunDir(dir), "results.csv"));
    expect(rows).toHaveLength(12);
    expect(rows.every((r) => r.status === "ok")).toBe(true);
    // Fitted scores (BFGS, an ODE solve) agree across numpy/scipy builds to about 13 digits, not bit for bit.
    for (const row of rows) {
      const documented = Number(DOCUMENTED_TEMPLATE_SCORES[row.task_id]);
      expect(Math.abs(Number(row.score_val_initial) - documented), `${row.task_id}: ${row.score_val_initial} vs ${documented}`).toBeLessThanOrEqual(Math.abs(documented) * 1e-12);
    }
    expect(rows.some((r) => Number(r.score_val_final) > Number(r.score_val_initial))).toBe(true);
    const again = tempDir();
    expect((await runCli(["run", "--config", "configs/llm4ad_smoke.yaml", "--runs-dir", again])).code).toBe(0);
    const scores = (rs: typeof rows) => rs.map((r) => [r.job_id, r.score_val_initial, r.score_val_final, r.llm_calls]);
    expect(scores(csvRows(join(singleRunDir(again), "results.csv")))).toEqual(scores(rows));
  }, 120_000);

  it("a candidate that starts a detached process does not keep the run alive, and nothing it started outlives the run", async () => {
    const dir = tempDir();
    const config = join(dir, "c.yaml");
    writeFileSync(config, "tasks: [llm4ad:detach]\ntrainers: [NoOpTrainer]\nseeds: [1, 2]\n");
    const started = Date.now();
    const r = await runCli(["run", "--config", config, "--runs-dir", dir, "--root", "test/fixtures/llm4ad/hostile"]);
    expect(r.code, r.stderr).toBe(0);
    expect(csvRows(join(singleRunDir(dir), "results.csv")).map((row) => [row.status, row.score_val_initial])).toEqual([
      ["ok", "1.0"],
      ["ok", "1.0"],
    ]);
    // The sleep would hold the run's pipes for an hour: the run ends when its jobs end.
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(await until(() => sleepers("3603").length === 0, 5_000)).toBe(true);
  }, 90_000);

  it("a TRACE_BENCH_SANDBOX that is not a sandbox is one line and exit 2 before anything is created", async () => {
    const dir = tempDir();
    for (const verb of [["run", "--runs-dir", dir], ["validate"]]) {
      const r = await runCli([...verb, "--config", "configs/llm4ad_smoke.yaml"], { env: { TRACE_BENCH_SANDBOX: "none" } });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toBe(`trace-bench: TRACE_BENCH_SANDBOX="none" is not a sandbox: use 'bubblewrap' (the default) or 'off'\n`);
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it("list-tasks --root: a folder without index.json lists its task folders; an unknown root says why on stderr", async () => {
    const bare = await runCli(["list-tasks", "--bench", "llm4ad", "--root", "test/fixtures/llm4ad/bare"]);
    expect(bare.stdout).toBe("llm4ad:slow_task\n");
    const none = await runCli(["list-tasks", "--bench", "llm4ad", "--root", "/no/such/root"]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe("");
    expect(none.stderr).toMatch(/^trace-bench: llm4ad: no LLM4AD tasks root at \/no\/such\/root; pass one with --root DIR/);
  });

  it("a task whose Python module is missing ends skipped, naming the module", async () => {
    const dir = tempDir();
    const config = join(dir, "c.yaml");
    writeFileSync(config, "tasks: [llm4ad:toy/needs_missing]\ntrainers: [NoOpTrainer]\n");
    const r = await runCli(["run", "--config", config, "--runs-dir", dir, "--root", "test/fixtures/llm4ad/indexed"]);
    expect(r.code, r.stderr).toBe(0);
    const [row] = csvRows(join(singleRunDir(dir), "results.csv"));
    expect(row!.status).toBe("skipped");
    expect(row!.feedback).toContain("needs the Python module 'not_a_real_module_for_trace_bench_tests'");
  });

  for (const how of ["SIGKILL", "SIGINT"] as const) {
    it(`a run ${how === "SIGKILL" ? "killed with SIGKILL" : "interrupted with Ctrl-C"} mid-evaluation leaves no python process`, async () => {
      const dir = tempDir();
      const config = join(dir, "slow.yaml");
      writeFileSync(config, "tasks: [llm4ad:slow_task]\ntrainers: [NoOpTrainer]\n");
      const child = spawn(process.execPath, [CLI, "run", "--config", config, "--runs-dir", dir, "--run-id", "slow", "--root", "test/fixtures/llm4ad/bare"], { cwd: REPO_ROOT, stdio: "ignore" });
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      // The task names the process it evaluates in once the job's initial evaluation is under way.
      const evaluating = () => processesNamed("slow-evaluating").filter((pid) => descendsFrom(pid, child.pid!));
      expect(await until(() => evaluating().length > 0, 30_000)).toBe(true);
      const workers = [...workersOf(child.pid!), ...evaluating()];
      child.kill(how);
      const code = await exited;
      if (how === "SIGINT") expect(code).toBe(130);
      expect(await until(() => workers.every((pid) => !isRunning(pid)), 5_000), `python workers ${workers.join(", ")} outlived the run`).toBe(true);
      if (how === "SIGINT") expect(eventsOf(join(dir, "slow")).some((e) => e.type === "JobFinished" && e.data.status === "cancelled")).toBe(true);
    }, 60_000);
  }
});
