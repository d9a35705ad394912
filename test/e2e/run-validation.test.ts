/**
 * Issue 10 items 1–3: run ids are names and belong to one config; `--resume failed` retries the
 * latest run; the printed resume hint works; `run` refuses what `validate --strict` refuses,
 * before it creates anything; per-trainer kwargs; unknown keys at their own line; did-you-mean.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, REPO_ROOT, runCli, runProcess, tempDir } from "../support/cli.js";
import { signalWhenSaid } from "../support/processes.js";
import { eventsOf, FIXTURE_ENV } from "../support/run-dir.js";

function config(dir: string, yaml: string, name = "config.yaml"): string {
  const path = join(dir, name);
  writeFileSync(path, yaml);
  return path;
}

const run = (args: readonly string[]) => runCli(["run", ...args], { env: FIXTURE_ENV });

const runDirs = (runs: string) => (existsSync(runs) ? readdirSync(runs).filter((n) => existsSync(join(runs, n, "events.db"))) : []);

function attemptsByJob(runDir: string): number[] {
  const out: Record<string, number> = {};
  for (const e of eventsOf(runDir)) if (e.type === "JobQueued") out[e.job_id!] = (out[e.job_id!] ?? 0) + 1;
  return Object.values(out).sort();
}

const mixed = "tasks: [internal:numeric_param, fixture:flaky]\ntrainers: [NoOpTrainer]\n";

describe("run ids are names of one config's run", () => {
  // Every shape of such an id (.., a/b, /abs, .hidden, a config's run_id): int/engine/run-id-refusal.test.ts.
  it("refuses a run id with a path in it, and creates nothing outside the runs dir", async () => {
    const dir = tempDir();
    const runs = join(dir, "runs");
    const cfg = config(dir, mixed);
    const r = await run(["--config", cfg, "--runs-dir", runs, "--run-id", "../x"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^trace-bench: --run-id: .* is not a plain name .*use letters, digits, '\.', '_' and '-' only/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(existsSync(join(dir, "x"))).toBe(false);
    expect(runDirs(runs)).toEqual([]);
  });

  it("refuses to resume a run dir with another config, naming both hashes and the fix", async () => {
    const dir = tempDir();
    const a = config(dir, mixed, "a.yaml");
    const b = config(dir, "tasks: [internal:multi_param]\ntrainers: [NoOpTrainer]\n", "b.yaml");
    expect((await run(["--config", a, "--runs-dir", dir, "--run-id", "shared"])).code).toBe(1);
    const r = await run(["--config", b, "--runs-dir", dir, "--run-id", "shared"]);
    expect(r.code).toBe(2);
    const [line, ...rest] = r.stderr.trim().split("\n");
    expect(rest).toEqual([]);
    expect(line).toMatch(/^trace-bench: --run-id: run .*shared was made by another config \(config_hash [0-9a-f]{16}; .*b\.yaml has [0-9a-f]{16}\); pass a new run id/);
    const [first, second] = [...line!.matchAll(/[0-9a-f]{16}/g)].map((m) => m[0]);
    expect(first).not.toBe(second);
    expect(eventsOf(join(dir, "shared")).filter((e) => e.type === "RunStarted")).toHaveLength(1);
    // The config that made it still resumes it.
    expect((await run(["--config", a, "--runs-dir", dir, "--run-id", "shared"])).stdout).toContain("Resuming shared: 1/2 jobs done");
  });
});

describe("retrying the failures", () => {
  it("--resume failed without a run id retries the latest run of the same config, finished or not, and says so", async () => {
    const dir = tempDir();
    const cfg = config(dir, mixed);
    expect((await run(["--config", cfg, "--runs-dir", dir])).code).toBe(1);
    // A finished run is not resumed by auto: this starts a second one, the latest.
    expect((await run(["--config", cfg, "--runs-dir", dir])).code).toBe(1);
    const before = runDirs(dir);
    expect(before).toHaveLength(2);
    // Run ids start with their UTC start time (a second one in the same second gets "-2").
    const latest = before.sort().at(-1)!;
    const r = await run(["--config", cfg, "--runs-dir", dir, "--resume", "failed"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`--resume failed: retrying the failed jobs of ${latest}, the latest run of this config in ${dir}`);
    expect(r.stdout).toContain(`Resuming ${latest}: 1/2 jobs done`);
    expect(runDirs(dir)).toHaveLength(2);
    expect(attemptsByJob(join(dir, latest))).toEqual([1, 2]);
  });

  it("the 'Resume with:' hint printed after Ctrl-C, executed as printed, resumes the run", async () => {
    const dir = tempDir();
    const runs = join(dir, "elsewhere");
    // No runs_dir in the config: the hint must name --runs-dir, or it would start a new run in ./runs.
    const cfg = config(dir, `seeds: [1, 2, 3, 4, 5, 6]\nmax_workers: 2\ntasks:\n  - {id: fixture:sleep, eval_kwargs: {delay_ms: 150}}\ntrainers: [NoOpTrainer]\n`);
    // `trace-bench` on PATH is this launcher, linked as `npm i -g` or `npm link` links it.
    const bin = join(dir, "bin");
    mkdirSync(bin);
    symlinkSync(CLI, join(bin, "trace-bench"));
    const env = { ...process.env, ...FIXTURE_ENV, PATH: `${bin}:${process.env.PATH}` };
    const first = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, "run", "--config", cfg, "--runs-dir", runs], { cwd: REPO_ROOT, env });
      const output = signalWhenSaid(child, "[1/6]");
      child.on("error", reject);
      child.on("exit", (code) => resolve({ code, stdout: output.stdout() }));
    });
    expect(first.code).toBe(130);
    const hint = /^Resume with: (.*)$/m.exec(first.stdout)?.[1];
    expect(hint).toMatch(/^trace-bench run --config /);
    expect(hint).toContain(`--runs-dir ${runs}`);
    const [runId] = runDirs(runs);
    const again = await runProcess("/bin/sh", ["-c", hint!], { cwd: REPO_ROOT, env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`Resuming ${runId}: [1-5]/6 jobs done`));
    expect(runDirs(runs)).toEqual([runId]);
    expect(existsSync(join(REPO_ROOT, "runs", runId!))).toBe(false);
  });

  it("the 'Resume with:' hint says npx trace-bench in a clone where trace-bench is not on PATH, and the launcher's path elsewhere", async () => {
    const dir = tempDir();
    const cfg = config(dir, `seeds: [1, 2, 3, 4, 5, 6]\nmax_workers: 2\ntasks:\n  - {id: fixture:sleep, eval_kwargs: {delay_ms: 150}}\ntrainers: [NoOpTrainer]\n`);
    const hintFrom = async (cwd: string, runs: string) => {
      const stdout = await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [CLI, "run", "--config", cfg, "--runs-dir", runs], { cwd, env: { ...process.env, ...FIXTURE_ENV, PATH: "/usr/bin:/bin" } });
        const output = signalWhenSaid(child, "[1/6]");
        child.on("error", reject);
        child.on("exit", () => resolve(output.stdout()));
      });
      return /^Resume with: (.*)$/m.exec(stdout)?.[1];
    };
    expect(await hintFrom(REPO_ROOT, join(dir, "runs-a"))).toMatch(/^npx trace-bench run --config /);
    // Outside any project npx would look for trace-bench in the registry: the launcher, run by node, works from anywhere.
    const outside = await hintFrom(dir, join(dir, "runs-b"));
    expect(outside).toMatch(new RegExp(`^node ${CLI.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} run --config `));
    const again = await runProcess("/bin/sh", ["-c", outside!], { cwd: dir, env: { ...process.env, ...FIXTURE_ENV } });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/Resuming [0-9a-f-]+: [1-5]\/6 jobs done/);
  });
});

describe("run refuses what validate --strict refuses, before creating anything", () => {
  const refused = async (dir: string, yaml: string) => {
    const runs = join(dir, "runs");
    const r = await run(["--config", config(dir, yaml), "--runs-dir", runs]);
    expect(r.code).toBe(2);
    expect(existsSync(runs)).toBe(false);
    return r.stderr;
  };

  it("a typo'd trainer kwarg: exit 2, one line with the fix, no run dir", async () => {
    const dir = tempDir();
    const stderr = await refused(dir, "tasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_stepz: 1}]\n");
    expect(stderr).toMatch(/^trace-bench: config error: .*config\.yaml:4: unknown trainer kwarg 'ps_stepz' for PrioritySearch; did you mean 'ps_steps'\? \(valid: /);
    expect(stderr.trim().split("\n")).toHaveLength(1);
  });

  it("a kwarg of another trainer: ps_steps on GEPA-Base", async () => {
    const stderr = await refused(tempDir(), "tasks: [internal:numeric_param]\ntrainers:\n  - id: GEPA-Base\n    params_variants: [{ps_steps: 1}]\n");
    expect(stderr).toContain("config.yaml:4: unknown trainer kwarg 'ps_steps' for GEPA-Base");
  });

  it("a misspelled task id, trainer id or config key, with what was meant", async () => {
    expect(await refused(tempDir(), "tasks: [internal:numeric_parm]\ntrainers: [NoOpTrainer]\n")).toContain(
      "config.yaml:1: unknown task 'internal:numeric_parm'; did you mean 'internal:numeric_param'?",
    );
    expect(await refused(tempDir(), "tasks: [internal:numeric_param]\ntrainers: [PrioritySerch]\n")).toContain(
      "config.yaml:2: trainer PrioritySerch: unknown trainer; did you mean 'PrioritySearch'?",
    );
    const key = await refused(tempDir(), "tasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variant:\n      - ps_steps: 1\n");
    expect(key).toContain("config.yaml:4: unknown key 'params_variant' (did you mean 'params_variants'?) in trainers[0]; fix or remove it");
    expect(await refused(tempDir(), "tasks: [internal:numeric_param]\nseed: 1\nmax_worker: 2\n")).toContain("config.yaml:3: unknown key 'max_worker' (did you mean 'max_workers'?) at the top level");
  });

  it("a misspelled flag, with the flag that was meant", async () => {
    const r = await run(["--config", "configs/smoke.yaml", "--run-idd", "x"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("trace-bench: Unknown option '--run-idd'; did you mean --run-id?");
  });
});

describe("validate: per-trainer kwargs and unknown keys", () => {
  it("--strict checks each trainer's own kwargs plus the legacy knobs that map to it", async () => {
    const dir = tempDir();
    const cfg = config(
      dir,
      [
        "tasks: [internal:numeric_param]",
        "trainers:",
        "  - id: PrioritySearch",
        "    params_variants: [{ps_steps: 1, num_candidates: 2}, {gepa_iters: 2}]",
        "  - id: GEPA-Base",
        "    params_variants: [{gepa_iters: 1, num_iters: 2}, {ps_steps: 2}]",
        "  - id: GEPA-UCB",
        "    params_variants: [{gepa_iters: 1}]",
      ].join("\n"),
    );
    const r = await runCli(["validate", "--config", cfg, "--strict", "--runs-dir", join(dir, "runs")]);
    expect(r.code).toBe(1);
    const fails = r.stdout.split("\n").filter((l) => l.startsWith("[FAIL]"));
    expect(fails).toHaveLength(2);
    expect(fails[0]).toMatch(/^\[FAIL\] unknown trainer kwarg 'gepa_iters' for PrioritySearch \(valid: .*ps_steps.*\) \[.*config\.yaml:4\]$/);
    expect(fails[1]).toMatch(/^\[FAIL\] unknown trainer kwarg 'ps_steps' for GEPA-Base \(valid: .*gepa_iters.*\) \[.*config\.yaml:6\]$/);
  });

  it("plain validate warns of a kwarg run would refuse (exit 0), naming the line and the near name", async () => {
    const dir = tempDir();
    const cfg = config(dir, "tasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_stepz: 1}]\n");
    const r = await runCli(["validate", "--config", cfg]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("[FAIL]");
    expect(r.stderr).toMatch(/^trace-bench: warning: unknown trainer kwarg 'ps_stepz' for PrioritySearch; did you mean 'ps_steps'\? \(valid: .*\) \[.*config\.yaml:4\] \(run refuses this; validate --strict fails it\)$/m);
  });

  it("top-level knobs apply to the trainers that take them", async () => {
    const dir = tempDir();
    const ok = config(dir, "tasks: [internal:numeric_param]\nps_steps: 1\ngepa_iters: 1\ntrainers: [PrioritySearch, GEPA-Base]\n", "ok.yaml");
    expect((await runCli(["validate", "--config", ok, "--strict", "--runs-dir", join(dir, "runs")])).code).toBe(0);
    const bad = config(dir, "tasks: [internal:numeric_param]\ngepa_iters: 1\ntrainers: [PrioritySearch]\n", "bad.yaml");
    const r = await runCli(["validate", "--config", bad, "--strict", "--runs-dir", join(dir, "runs")]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("[FAIL] trainer kwarg 'gepa_iters' (set for every trainer) is taken by none of this config's trainers (PrioritySearch)");
  });

  it("an unknown key is a warning in plain validate and a failed check under --strict, at its own line", async () => {
    const dir = tempDir();
    const cfg = config(dir, "tasks: [internal:numeric_param]\ntrainers:\n  - id: NoOpTrainer\n    params_variant:\n      - num_steps: 1\n");
    const plain = await runCli(["validate", "--config", cfg]);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toContain(`trace-bench: warning: ${cfg}:4: unknown key 'params_variant' (did you mean 'params_variants'?) in trainers[0] (ignored)`);
    const strict = await runCli(["validate", "--config", cfg, "--strict", "--runs-dir", join(dir, "runs")]);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain(`[FAIL] unknown key 'params_variant' (did you mean 'params_variants'?) in trainers[0]; fix or remove it ('npx trace-bench schema' lists the keys) [${cfg}:4]`);
    expect(strict.stderr).not.toContain("params_variant");
  });
});
