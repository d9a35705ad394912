/**
 * The original's DSPy configs through the real CLI (test/fixtures/hf/configs: same tasks,
 * trainers, params and seeds, mode stub): `validate --strict` gives the original's job ids and
 * passes where the original's would (DSPyTrainer with its own kwargs; DSPyCOPROTrainer, which no
 * version of the original defines, fails as there), and a run skips each DSPy job with one line
 * saying why (python3 cannot import dspy here). DSPyTrainer on an hf task that names no framework
 * gets framework dspy, as the original injects it.
 */
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCsvRecords } from "../../src/codec/python-csv.js";
import { REPO_ROOT, tempDir } from "../support/cli.js";
import { runCliAsync } from "../support/crash-harness.js";

const fixtures = join("test", "fixtures", "hf");
const originalIds = JSON.parse(readFileSync(join(fixtures, "original-job-ids.json"), "utf8")) as Record<string, string[]>;
const dspyConfigs = readdirSync(join(fixtures, "configs")).filter((name) => name.includes("dspy")).sort();

/** No user's data and no dspy (whatever the machine has): the skip reason is the same everywhere. */
const env = (dir: string) => ({ ...process.env, HF_HUB_CACHE: join(dir, "empty-hub"), HF_HOME: join(dir, "empty-home"), TRACE_BENCH_HF_DATA_DIR: "", PYTHONPATH: "" });
const NO_DSPY = "framework dspy builds a DSPy agent in Python's dspy, which python3 cannot import here (ModuleNotFoundError: No module named 'dspy'); install it for the python3 on PATH (pip install dspy)";

const runCli = (args: readonly string[], options: { env: NodeJS.ProcessEnv }) => runCliAsync(args, { cwd: REPO_ROOT, env: options.env, timeoutMs: 120_000 });

function rowsOf(runsDir: string) {
  const [runDir] = readdirSync(runsDir).filter((d) => !d.startsWith("."));
  return parseCsvRecords(readFileSync(join(runsDir, runDir!, "results.csv"), "utf8"));
}

describe("the original's DSPy configs", () => {
  it("validate --strict with the original's job ids; DSPyTrainer's kwargs are accepted, its hf tasks skipped for want of dspy", async () => {
    expect(dspyConfigs).toHaveLength(7);
    const dir = tempDir();
    for (const name of dspyConfigs) {
      const r = await runCli(["validate", "--strict", "--config", join(fixtures, "configs", name), "--runs-dir", dir], { env: env(dir) });
      const ids = [...r.stdout.matchAll(/^ {2}job ([0-9a-f]{12}): /gm)].map((m) => m[1]);
      expect(ids, name).toEqual(originalIds[name]);
      expect(r.stdout, name).toContain(`: ${NO_DSPY}`);
      if (readFileSync(join(fixtures, "configs", name), "utf8").includes("DSPyCOPROTrainer")) {
        // The original has no such trainer either: its validate fails the same way.
        expect(r.code, name).toBe(1);
        expect(r.stdout).toMatch(/\[FAIL\] trainer DSPyCOPROTrainer: unknown trainer/);
      } else {
        expect(r.code, `${name}\n${r.stdout}${r.stderr}`).toBe(0);
        expect(r.stdout).not.toContain("[FAIL]");
      }
    }
  }, 400_000);

  it("a run skips the DSPy job with its one-line reason", async () => {
    const dir = tempDir();
    const runsDir = join(dir, "runs");
    const r = await runCli(["run", "--config", join(fixtures, "configs", "smoke_hf_bbeh_dspy_copro_gemini.yaml"), "--runs-dir", runsDir], { env: env(dir) });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const rows = rowsOf(runsDir);
    expect(rows.map((row) => [row.job_id, row.status])).toEqual([[originalIds["smoke_hf_bbeh_dspy_copro_gemini.yaml"]![0], "skipped"]]);
    expect(rows[0]!.feedback).toBe(NO_DSPY);
  }, 120_000);

  it("DSPyTrainer on an hf task without a framework builds it with framework dspy (skipped here), as the original injects it", async () => {
    const dir = tempDir();
    const config = join(dir, "config.yaml");
    writeFileSync(config, "mode: stub\nseeds: [123]\ntasks:\n  - id: hf:gsm8k\n    eval_kwargs: {num_train: 2}\ntrainers:\n  - id: DSPyTrainer\n    params_variants: [{dspy_optimizer: copro, breadth: 2, depth: 1}]\n");
    const r = await runCli(["run", "--config", config, "--runs-dir", join(dir, "runs")], { env: env(dir) });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const rows = rowsOf(join(dir, "runs"));
    expect(rows.map((row) => [row.status, row.feedback])).toEqual([["skipped", NO_DSPY]]);
  }, 120_000);
});
