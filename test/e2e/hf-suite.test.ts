/**
 * The hf suite through the real CLI: `list-tasks --bench hf`, the original's job ids for each of
 * its hf configs (test/fixtures/hf/configs: same tasks, trainers, params and seeds; the ids were
 * computed with python3's json.dumps(sort_keys=True) + sha256 as the original does), and a run
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

  it("validate --strict of each of the original's 15 hf configs gives the original's 49 job ids, in matrix order", async () => {
    const dir = tempDir();
    const configs = readdirSync(join(fixtures, "configs")).sort();
    expect(configs).toEqual(Object.keys(originalIds).sort());
    let total = 0;
    for (const name of configs) {
      const r = await runCli(["validate", "--strict", "--config", join(fixtures, "configs", name), "--runs-dir", dir], { env: noData(dir) });
      const ids = [...r.stdout.matchAll(/^ {2}job ([0-9a-f]{12}): /gm)].map((m) => m[1]);
      expect(ids, name).toEqual(originalIds[name]);
      total += ids.length;
      // The hf tasks themselves validate (skipped for want of data here); DSPyTrainer is another suite's work.
      expect(r.stdout, name).not.toMatch(/\[FAIL\] hf:/);
      if (!/DSPy/.test(readFileSync(join(fixtures, "configs", name), "utf8"))) expect(r.code, `${name}\n${r.stdout}${r.stderr}`).toBe(0);
    }
    expect(total).toBe(49);
    // 15 CLI processes, about 4 s each on a busy machine.
  }, 240_000);

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
