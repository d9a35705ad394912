/**
 * Loggers work or say no: `--logger TensorboardLogger` writes TensorBoard event files in each
 * job's tb/ (read back by the test's own parser), an unknown or unavailable logger stops `run`
 * with one line and exit 2 before anything is created.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../support/cli.js";
import { csvRows } from "../support/run-dir.js";
import { readTbEvents } from "../support/tfevents-reader.js";

function config(dir: string, extra = ""): string {
  const path = join(dir, "tb.yaml");
  writeFileSync(path, `tasks: [internal:numeric_param]\nseeds: [1, 2]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 3}]\n${extra}`);
  return path;
}

describe("--logger TensorboardLogger", () => {
  it("writes an event file per job whose steps and scalars are the job's iterations; replay rebuilds it byte for byte", () => {
    const dir = tempDir();
    const r = runCli(["run", "--config", config(dir), "--runs-dir", dir, "--run-id", "tb", "--logger", "TensorboardLogger"]);
    expect(r.code, r.stderr).toBe(0);
    const runDir = join(dir, "tb");
    const rows = csvRows(join(runDir, "results.csv"));
    expect(rows).toHaveLength(2);
    const files = new Map<string, Buffer>();
    for (const row of rows) {
      expect(row.resolved_logger).toBe("opto.trainer.loggers.TensorboardLogger");
      const tb = join(runDir, row.tb_logdir!);
      const names = readdirSync(tb);
      expect(names).toEqual(["events.out.tfevents.trace-bench"]);
      const bytes = readFileSync(join(tb, names[0]!));
      files.set(row.job_id!, bytes);
      const events = readTbEvents(bytes);
      expect(events[0]!.fileVersion).toBe("brain.Event:2");
      // The iterations as the job's own history has them.
      const history = readFileSync(join(runDir, row.state_history_path!), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { kind: string; step: number; score: number | null; best_score: number | null; llm_calls: number; evaluations: number })
        .filter((h) => h.kind === "iteration");
      expect(history.length).toBeGreaterThanOrEqual(2);
      expect(events).toHaveLength(1 + history.length);
      expect(events.slice(1).map((e) => e.step)).toEqual(history.map((h) => h.step));
      for (const [i, h] of history.entries()) {
        const scalars = events[i + 1]!.scalars!;
        if (h.score !== null) expect(scalars.score).toBeCloseTo(h.score, 5); // stored as float32
        expect(scalars.best_score).toBeCloseTo(h.best_score!, 5);
        expect(scalars.llm_calls).toBe(h.llm_calls);
        expect(scalars.evaluations).toBe(h.evaluations);
        // The stub's tokens are estimates: no total_tokens scalar.
        expect(scalars).not.toHaveProperty("total_tokens");
      }
      const times = events.map((e) => e.wallTime);
      expect(times.every((t, i) => t > 1.6e9 && (i === 0 || t >= times[i - 1]!))).toBe(true);
    }
    expect(runCli(["replay", runDir]).code).toBe(0);
    for (const row of rows) expect(readFileSync(join(runDir, row.tb_logdir!, "events.out.tfevents.trace-bench")).equals(files.get(row.job_id!)!)).toBe(true);
  });

  it("without it, tb/ stays empty", () => {
    const dir = tempDir();
    expect(runCli(["run", "--config", config(dir), "--runs-dir", dir, "--run-id", "plain"]).code).toBe(0);
    for (const row of csvRows(join(dir, "plain", "results.csv"))) expect(readdirSync(join(dir, "plain", row.tb_logdir!))).toEqual([]);
  });
});

describe("loggers that cannot be used are refused", () => {
  it("an unknown --logger: one line naming the known loggers, exit 2, no run dir", () => {
    const dir = tempDir();
    const r = runCli(["run", "--config", config(dir), "--runs-dir", dir, "--run-id", "x", "--logger", "TensorBoardLoger"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--logger: logger not found: TensorBoardLoger; did you mean 'TensorboardLogger'? (known: ConsoleLogger, DefaultLogger, TensorboardLogger, NullLogger, or none)");
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, "x"))).toBe(false);
  });

  it("WandbLogger, by flag or in the config, is unavailable with the reason, exit 2", () => {
    const dir = tempDir();
    const byFlag = runCli(["run", "--config", config(dir), "--runs-dir", dir, "--run-id", "x", "--logger", "WandbLogger"]);
    expect(byFlag.code).toBe(2);
    expect(byFlag.stderr).toContain("--logger: logger WandbLogger is not available: trace-bench has no Weights & Biases client");
    const inConfig = runCli(["run", "--config", config(dir, "    logger: WandbLogger\n"), "--runs-dir", dir, "--run-id", "x"]);
    expect(inConfig.code).toBe(2);
    expect(inConfig.stderr).toMatch(/tb\.yaml:\d+: logger WandbLogger is not available/);
    expect(existsSync(join(dir, "x"))).toBe(false);
  });
});
