/**
 * The hf suite through the real CLI: `list-tasks --bench hf`, the original's job ids printed by
 * `validate --strict` for one of its hf configs (all 15: test/int/hf/hf-config-job-ids.test.ts), and a run
 * whose dataset is not on the machine, skipped with the dataset, split and places looked.
 */
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCsvRecords } from "../../src/codec/python-csv.js";
import { runCli, tempDir } from "../support/cli.js";

const fixtures = join("test", "fixtures", "hf");
const originalIds = JSON.parse(readFileSync(join(fixtures, "original-job-ids.json"), "utf8")) as Record<string, string[]>;

/** No user's data: an empty hub cache and no data directory. */
const noData = (dir: string) => ({ HF_HUB_CACHE: join(dir, "empty-hub"), HF_HOME: join(dir, "empty-home"), TRACE_BENCH_HF_DATA_DIR: "" });

describe("hf suite from the CLI", () => {
  it("list-tasks --bench hf lists the original's 51 ids", async () => {
    const r = await runCli(["list-tasks", "--bench", "hf"]);
    expect(r.code).toBe(0);
    const ids = r.stdout.trim().split("\n");
    expect(ids).toHaveLength(51);
    expect(ids).toContain("hf:hotpot_qa");
    expect(ids).toContain("hf:bbeh/zebra_puzzles");
    expect(ids).toContain("hf:bbeh_horizon/multistep_arithmetic");
    expect(ids).toContain("hf:mbpp");
  });

  // All 15 configs' ids and task loads are checked in process (test/int/hf/hf-config-job-ids.test.ts);
  // here the CLI prints one config's ids, in matrix order, and validates its hf tasks.
  it("validate --strict of one of the original's hf configs prints the original's job ids, in matrix order, and exits 0", async () => {
    const dir = tempDir();
    const name = "overnight_hf_hotpotqa_gemini.yaml"; // 4 jobs: the order shows
    const r = await runCli(["validate", "--strict", "--config", join(fixtures, "configs", name), "--runs-dir", dir], { env: noData(dir) });
    const ids = [...r.stdout.matchAll(/^ {2}job ([0-9a-f]{12}): /gm)].map((m) => m[1]);
    expect(ids.length).toBeGreaterThan(1);
    expect(ids).toEqual(originalIds[name]);
    // The hf task itself validates (skipped for want of data here).
    expect(r.stdout).toMatch(/^\[SKIP\] hf:/m);
    expect(r.stdout).not.toMatch(/\[FAIL\] hf:/);
    expect(r.code, `${r.stdout}${r.stderr}`).toBe(0);
  });

  it("a run whose dataset is missing skips the job, naming the dataset, the split and where it looked", async () => {
    const dir = tempDir();
    const config = join(dir, "config.yaml");
    writeFileSync(config, "mode: stub\nseeds: [123]\ntasks:\n  - id: hf:gsm8k\n    eval_kwargs: {num_train: 2, num_validate: 1, num_test: 1, data_dir: " + JSON.stringify(join(dir, "data")) + "}\ntrainers:\n  - id: PrioritySearch\n");
    const r = await runCli(["run", "--config", config, "--runs-dir", join(dir, "runs")], { env: noData(dir) });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const [runDir] = readdirSync(join(dir, "runs"));
    const rows = parseCsvRecords(readFileSync(join(dir, "runs", runDir!, "results.csv"), "utf8"));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.status).toBe("skipped");
    const feedback = rows[0]!.feedback!;
    expect(feedback).toContain("openai/gsm8k");
    expect(feedback).toContain("split 'train'");
    expect(feedback).toContain(join(dir, "data", "openai", "gsm8k", "main", "train.jsonl"));
    expect(feedback).toContain(join(dir, "empty-hub", "datasets--openai--gsm8k", "snapshots"));
  });
});
