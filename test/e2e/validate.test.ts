import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli, tempDir, type CliResult } from "../support/cli.js";

function writeConfig(dir: string, yaml: string): string {
  const path = join(dir, "config.yaml");
  writeFileSync(path, yaml);
  return path;
}

describe("validate", () => {
  // One `validate --strict` of the smoke config, into a runs dir of its own, read by the two tests below.
  let out: string;
  let strictSmoke: CliResult;
  beforeAll(async () => {
    out = tempDir();
    strictSmoke = await runCli(["validate", "--config", "configs/smoke.yaml", "--strict", "--runs-dir", out]);
  });

  it("validate --strict on the smoke config lists the golden job and writes the manifest", () => {
    const r = strictSmoke;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("[OK] internal:numeric_param");
    expect(r.stdout).toContain("[OK] matrix: 1 jobs expanded deterministically");
    expect(r.stdout).toContain("  job 806f391306ae: internal:numeric_param x PrioritySearch [ps_batches=1,ps_steps=1] (seed=123)");
    expect(r.stdout).toContain("  tasks:    ['internal:numeric_param']\n  trainers: ['PrioritySearch']");
    // The manifest goes into the runs dir's .validate/ folder, where it does not look like a run.
    expect(readdirSync(out)).toEqual([".validate"]);
    const manifests = readdirSync(join(out, ".validate"));
    expect(manifests).toHaveLength(1);
    expect(manifests[0]).toMatch(/^\d{8}-\d{6}-[0-9a-f]{8}\.manifest\.json$/);
    const manifestPath = join(out, ".validate", manifests[0]!);
    expect(r.stdout).toContain(`[OK] manifest written: ${manifestPath}`);
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    expect(manifest.run_id).toBe(manifests[0]!.replace(".manifest.json", ""));
    expect(manifest.config_hash).toMatch(/^[0-9a-f]{16}$/);
    expect(manifest.generated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/);
    expect(manifest.jobs).toEqual([
      expect.objectContaining({
        job_id: "806f391306ae",
        suite: "internal",
        raw_params: { ps_steps: 1, ps_batches: 1 },
        resolved_trainer_kwargs: { num_epochs: 1, num_steps: 1, num_batches: 1, num_candidates: 2, num_proposals: 2 },
        resolved_optimizer_kwargs: expect.objectContaining({ memory_size: 5 }),
        status_hint: "ok",
        skip_reason: null,
      }),
    ]);
  });

  it("validate --strict manifests are not runs: `runs` lists none, and an unwritable runs dir is one line, exit 2", async () => {
    expect(strictSmoke.code).toBe(0);
    const listed = await runCli(["runs", "--runs-dir", out, "--json"]);
    expect(JSON.parse(listed.stdout)).toEqual({ runs_dir: out, runs: [], warnings: [] });
    const file = join(tempDir(), "a-file");
    writeFileSync(file, "");
    const r = await runCli(["validate", "--config", "configs/smoke.yaml", "--strict", "--runs-dir", file]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^trace-bench: cannot write the manifest .*a-file\/\.validate\/.*\.manifest\.json \(ENOTDIR\); pass a writable directory with --runs-dir$/)]);
  });

  it("passes (exit 0) on the smoke config, and fails (exit 1) naming the reason when a trainer cannot run", async () => {
    expect((await runCli(["validate", "--config", "configs/smoke.yaml"])).code).toBe(0);
    const dir = tempDir();
    const config = writeConfig(dir, "tasks: [internal:numeric_param]\ntrainers: [AggregatedUpdate, OpenEvolveTrainer]\n");
    const r = await runCli(["validate", "--config", config]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("[FAIL] trainer AggregatedUpdate: not available (removed from OpenTrace (v0.2.0-alpha only))");
    expect(r.stdout).toContain("[FAIL] trainer OpenEvolveTrainer: not available (not part of trace-bench");
    expect(r.stdout).not.toContain("matrix");
  });

  it("expands the 2 × 2 matrix config into 4 jobs in task-major order", async () => {
    const r = await runCli(["validate", "--config", "configs/m1_matrix_smoke.yaml", "--strict", "--runs-dir", tempDir()]);
    const jobs = r.stdout.split("\n").filter((l) => l.startsWith("  job "));
    expect(jobs.map((l) => l.replace(/job [0-9a-f]{12}/, "job X"))).toEqual([
      "  job X: internal:numeric_param x PrioritySearch [ps_batches=1,ps_steps=1] (seed=123)",
      "  job X: internal:numeric_param x GEPA-Base [gepa_iters=1,gepa_merge_every=2,gepa_pareto_subset=1,gepa_train_bs=1] (seed=123)",
      "  job X: internal:code_param x PrioritySearch [ps_batches=1,ps_steps=1] (seed=123)",
      "  job X: internal:code_param x GEPA-Base [gepa_iters=1,gepa_merge_every=2,gepa_pareto_subset=1,gepa_train_bs=1] (seed=123)",
    ]);
  });

  it("reports unknown tasks, unknown trainer kwargs, optimizers and loggers under --strict", async () => {
    const dir = tempDir();
    const config = writeConfig(
      dir,
      [
        "tasks: [internal:numeric_param, internal:nope, example:greeting_stub]",
        "trainers:",
        "  - id: PrioritySearch",
        "    optimizer: OptoSuper",
        "    logger: FancyLogger",
        "    params_variants: [{ps_steps: 1, warp_speed: 9}]",
        "  - id: NotATrainer",
      ].join("\n"),
    );
    const r = await runCli(["validate", "--config", config, "--strict", "--runs-dir", dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/\[FAIL\] unknown trainer kwarg 'warp_speed' for PrioritySearch \(valid: verbose, threads, .*\)/);
    expect(r.stdout).toContain("[FAIL] optimizer not found: OptoSuper (known: OptoPrimeV2, OPROv2, OptoPrime, OPRO, TextGrad");
    expect(r.stdout).toContain("[FAIL] logger not found: FancyLogger");
    expect(r.stdout).toContain("[FAIL] trainer NotATrainer: unknown trainer; did you mean 'NoOpTrainer'? run 'npx trace-bench list-trainers --all'"); // started from the clone, not from PATH
    expect(r.stdout).toContain("[FAIL] internal:nope: unknown task 'internal:nope'");
    expect(r.stdout).toContain("[OK] trace_examples:greeting_stub");
  });

  it("marks internal:non_trainable as [EXPECTED] and other untrainable tasks would fail", async () => {
    const dir = tempDir();
    const config = writeConfig(dir, "tasks: [internal:non_trainable]\ntrainers: [PrioritySearch]\n");
    const r = await runCli(["validate", "--config", config, "--strict", "--runs-dir", dir]);
    expect(r.stdout).toContain("[EXPECTED] internal:non_trainable: no_trainable_parameters");
    expect(r.stdout).not.toContain("[FAIL] internal:non_trainable");
  });

  it("notes (exit 0) a kwarg the Python harness ignores: this variant is not comparable with it (#13 ps-options harness_batch_size_alias)", async () => {
    const dir = tempDir();
    const config = writeConfig(dir, "tasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants:\n      - batch_size: 2\n");
    const r = await runCli(["validate", "--config", config, "--strict", "--runs-dir", dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `[NOTE] trainer PrioritySearch: batch_size is honoured here but ignored by the Python harness (the harness renames it train_batch_size, which PrioritySearch does not know, and runs batch 1): this variant's results are not comparable with the Python harness [${config}:5]`,
    );
    const plain = await runCli(["validate", "--config", writeConfig(tempDir(), "tasks: [internal:numeric_param]\ntrainers: [PrioritySearch]\n")]);
    expect(plain.stdout).not.toContain("[NOTE]");
  });

  it("validates only the tasks of the --bench suites; without --bench every task", async () => {
    const dir = tempDir();
    const config = writeConfig(dir, "tasks: [internal:numeric_param, example:greeting_stub, terminal_bench:regex-log]\n");
    const internal = await runCli(["validate", "--config", config, "--bench", "internal"]);
    expect(internal.stdout).toContain("[OK] internal:numeric_param");
    expect(internal.stdout).not.toContain("greeting_stub");
    expect(internal.stdout).not.toContain("terminal_bench");
    const terminal = await runCli(["validate", "--config", config, "--bench", "terminal_bench"]);
    expect(terminal.stdout).toContain("[OK] terminal_bench:regex-log");
    expect(terminal.stdout).not.toContain("internal:numeric_param");
    const all = await runCli(["validate", "--config", config]);
    expect(all.stdout.split("\n").filter(Boolean)).toEqual(["[OK] internal:numeric_param", "[OK] trace_examples:greeting_stub", "[OK] terminal_bench:regex-log"]);
    expect(all.code).toBe(0);
  });

  it("prints one line per config problem with file, line and key path, and exits 2", async () => {
    const dir = tempDir();
    const config = writeConfig(dir, "tasks: [internal:numeric_param]\ntrainers:\n  - PrioritySearch\n  - id: GEPA-Base\n    params_variants:\n      - gepa_iters: lots\n");
    const r = await runCli(["validate", "--config", config]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`trace-bench: config error: ${config}:6: trainers[1].params_variants[0].gepa_iters: expected a whole number ≥ 0, or null, found "lots"\n`);
  });

  it("reports a YAML syntax error with its line and an unreadable file, exit 2, no stack trace", async () => {
    const dir = tempDir();
    const config = writeConfig(dir, "tasks:\n  - internal:numeric_param\ntrainers: [PrioritySearch\nseeds: [1]\n");
    const bad = await runCli(["validate", "--config", config]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(new RegExp(`^trace-bench: config error: ${config}:\\d+:\\d+: invalid YAML: `));
    expect(bad.stderr.split("\n").filter(Boolean)).toHaveLength(1);
    const missing = await runCli(["validate", "--config", join(dir, "missing.yaml")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`trace-bench: config error: ${join(dir, "missing.yaml")}: cannot read config file (no such file); pass an existing YAML or JSON file with --config\n`);
  });

  it("warns about unknown keys on stderr but still validates", async () => {
    const dir = tempDir();
    const config = writeConfig(dir, "tasks: [internal:numeric_param]\ntrainers: [PrioritySearch]\nworkers: 4\n");
    const r = await runCli(["validate", "--config", config]);
    expect(r.stderr).toContain(`trace-bench: warning: ${config}:3: unknown key 'workers' at the top level (ignored)`);
    expect(r.stdout).toContain("[OK] internal:numeric_param");
  });

  it("in mode real a missing API key is a warning, and with --strict a failed check naming the variable", async () => {
    const dir = tempDir();
    const variable = "TRACE_BENCH_E2E_UNSET_KEY";
    const config = writeConfig(dir, `mode: real\nllm:\n  api_key_env: ${variable}\ntasks: [internal:numeric_param]\ntrainers: [PrioritySearch]\n`);
    const problem = `llm.api_key_env: mode real needs an API key in the environment variable ${variable}; set it (a .env file works too), or name another variable with llm.api_key_env`;
    const env = { [variable]: undefined };

    const plain = await runCli(["validate", "--config", config], { env });
    expect(plain.code).toBe(0);
    expect(plain.stderr).toContain(`trace-bench: warning: ${problem}\n`);
    expect(plain.stdout).not.toContain("[FAIL]");

    const strict = await runCli(["validate", "--config", config, "--strict", "--runs-dir", dir], { env });
    expect(strict.code).toBe(1);
    expect(strict.stdout.split("\n")).toContain(`[FAIL] ${problem}`);
    expect(strict.stderr).not.toContain(problem);

    const withKey = await runCli(["validate", "--config", config, "--strict", "--runs-dir", dir], { env: { [variable]: "sk-test" } });
    expect(withKey.code).toBe(0);
    expect(withKey.stdout + withKey.stderr).not.toContain(variable);
  });

  it("a role's own key variable is reported for that role; mode stub needs no key", async () => {
    const dir = tempDir();
    const llm = "llm:\n  api_key_env: TRACE_BENCH_E2E_SET_KEY\n  optimizer:\n    api_key_env: TRACE_BENCH_E2E_OPT_KEY\n";
    const env = { TRACE_BENCH_E2E_SET_KEY: "sk-test", TRACE_BENCH_E2E_OPT_KEY: undefined };
    const real = writeConfig(dir, `mode: real\n${llm}tasks: [internal:numeric_param]\n`);
    const r = await runCli(["validate", "--config", real, "--strict", "--runs-dir", dir], { env });
    expect(r.code).toBe(1);
    expect(r.stdout.split("\n").filter((l) => l.includes("API key"))).toEqual([
      "[FAIL] llm.optimizer.api_key_env: mode real needs an API key for the optimizer in the environment variable TRACE_BENCH_E2E_OPT_KEY; set it (a .env file works too), or name another variable with llm.optimizer.api_key_env",
    ]);
    const stub = writeConfig(dir, `mode: stub\n${llm}tasks: [internal:numeric_param]\n`);
    const s = await runCli(["validate", "--config", stub, "--strict", "--runs-dir", dir], { env });
    expect(s.code).toBe(0);
    expect(s.stdout + s.stderr).not.toContain("API key");
  });
});
