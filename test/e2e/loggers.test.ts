/**
 * Loggers work or say no: `--logger TensorboardLogger` writes TensorBoard event files in each
 * job's tb/, in a folder that names the TensorBoard run after the job's task, trainer, variant
 * label and seed (read back by the test's own parser), an unknown or unavailable logger stops
 * `run` with one line and exit 2 before anything is created.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { relative } from "node:path";
import { runCli, tempDir } from "../support/cli.js";
import { csvRows } from "../support/run-dir.js";
import { readTbEvents } from "../support/tfevents-reader.js";

function config(dir: string, extra = "", variants = "[{ps_steps: 3}]"): string {
  const path = join(dir, "tb.yaml");
  writeFileSync(path, `tasks: [internal:numeric_param]\nseeds: [1, 2]\ntrainers:\n  - id: PrioritySearch\n    params_variants: ${variants}\n${extra}`);
  return path;
}

const EVENT_FILE = "events.out.tfevents.trace-bench";

/** Every event file under `root`, by its folder relative to `root`: the run names `tensorboard --logdir root` shows. */
function tensorboardRuns(root: string): Map<string, Buffer> {
  const runs = new Map<string, Buffer>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.includes("tfevents")) continue;
    runs.set(relative(root, entry.parentPath), readFileSync(join(entry.parentPath, entry.name)));
  }
  return runs;
}

describe("--logger TensorboardLogger", () => {
  it("writes an event file per job whose steps and scalars are the job's iterations; replay rebuilds it byte for byte", async () => {
    const dir = tempDir();
    const r = await runCli(["run", "--config", config(dir), "--runs-dir", dir, "--run-id", "tb", "--logger", "TensorboardLogger"]);
    expect(r.code, r.stderr).toBe(0);
    const runDir = join(dir, "tb");
    const rows = csvRows(join(runDir, "results.csv"));
    expect(rows).toHaveLength(2);
    const files = new Map<string, Buffer>();
    for (const row of rows) {
      expect(row.resolved_logger).toBe("opto.trainer.loggers.TensorboardLogger");
      // tb_logdir (the original's logdir) holds one folder, the run's name, holding the event file.
      const tb = join(runDir, row.tb_logdir!);
      expect(readdirSync(tb)).toEqual([`internal-numeric_param__PrioritySearch__ps_steps=3__seed=${row.seed}`]);
      const runFolder = join(tb, readdirSync(tb)[0]!);
      expect(readdirSync(runFolder)).toEqual([EVENT_FILE]);
      const bytes = readFileSync(join(runFolder, EVENT_FILE));
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
    expect((await runCli(["replay", runDir])).code).toBe(0);
    for (const row of rows) expect(tensorboardRuns(join(runDir, row.tb_logdir!)).get(`internal-numeric_param__PrioritySearch__ps_steps=3__seed=${row.seed}`)?.equals(files.get(row.job_id!)!)).toBe(true);
  });

  it("a sweep of two variants gives each job's TensorBoard run a name holding its variant label; replay rebuilds them byte for byte and lists an event file of the old layout as a stray", async () => {
    const dir = tempDir();
    const r = await runCli(["run", "--config", config(dir, "", "[{ps_steps: 2}, {ps_steps: 4}]"), "--runs-dir", dir, "--run-id", "sweep", "--logger", "TensorboardLogger"]);
    expect(r.code, r.stderr).toBe(0);
    const runDir = join(dir, "sweep");
    const rows = csvRows(join(runDir, "results.csv"));
    expect(rows.map((row) => row.variant).sort()).toEqual(["ps_steps=2", "ps_steps=2", "ps_steps=4", "ps_steps=4"]);
    // What `tensorboard --logdir <run>/jobs` names its runs: one per job, each with the job's label and seed.
    const jobsDir = join(runDir, "jobs");
    const runs = tensorboardRuns(jobsDir);
    expect([...runs.keys()].sort()).toEqual(rows.map((row) => `${row.job_id}/tb/internal-numeric_param__PrioritySearch__${row.variant}__seed=${row.seed}`).sort());
    for (const label of ["ps_steps=2", "ps_steps=4"]) expect([...runs.keys()].filter((name) => name.includes(`__${label}__`))).toHaveLength(2);
    for (const bytes of runs.values()) expect(readTbEvents(bytes)[0]!.fileVersion).toBe("brain.Event:2");

    // Gone, replay makes them again, byte for byte.
    const moved = join(dir, "moved-away");
    mkdirSync(moved);
    for (const row of rows) renameSync(join(runDir, row.tb_logdir!), join(moved, row.job_id!));
    const replay = await runCli(["replay", runDir]);
    expect(replay.code, replay.stderr).toBe(0);
    const rebuilt = tensorboardRuns(jobsDir);
    expect([...rebuilt.keys()].sort()).toEqual([...runs.keys()].sort());
    for (const [name, bytes] of runs) expect(rebuilt.get(name)!.equals(bytes), name).toBe(true);

    // An event file of the layout before run names carried the label (right in tb/): kept and named, moved aside with --prune.
    const first = rows[0]!;
    const oldLayout = join(runDir, first.tb_logdir!, EVENT_FILE);
    writeFileSync(oldLayout, runs.values().next().value!);
    const kept = await runCli(["replay", runDir]);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout + kept.stderr).toContain(`Kept 1 entry the event log does not produce (left as they are): ${first!.tb_logdir}/${EVENT_FILE}`);
    expect(existsSync(oldLayout)).toBe(true);
    const pruned = await runCli(["replay", "--prune", runDir]);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout + pruned.stderr).toContain(`Moved 1 entry the event log does not produce to `);
    expect(existsSync(oldLayout)).toBe(false);
    for (const [name, bytes] of runs) expect(tensorboardRuns(jobsDir).get(name)!.equals(bytes), name).toBe(true);
    // (That the log still verifies after --prune is the tier's after-all `replay --verify` of every run.)
  });

  it("without it, tb/ stays empty", async () => {
    const dir = tempDir();
    expect((await runCli(["run", "--config", config(dir), "--runs-dir", dir, "--run-id", "plain"])).code).toBe(0);
    for (const row of csvRows(join(dir, "plain", "results.csv"))) expect(readdirSync(join(dir, "plain", row.tb_logdir!))).toEqual([]);
  });
});

describe("loggers that cannot be used are refused", () => {
  it("an unknown --logger: one line naming the known loggers, exit 2, no run dir", async () => {
    const dir = tempDir();
    const r = await runCli(["run", "--config", config(dir), "--runs-dir", dir, "--run-id", "x", "--logger", "TensorBoardLoger"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--logger: logger not found: TensorBoardLoger; did you mean 'TensorboardLogger'? (known: ConsoleLogger, DefaultLogger, TensorboardLogger, NullLogger, or none)");
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, "x"))).toBe(false);
  });

  it("WandbLogger, by flag or in the config, is unavailable with the reason, exit 2", async () => {
    const dir = tempDir();
    const byFlag = await runCli(["run", "--config", config(dir), "--runs-dir", dir, "--run-id", "x", "--logger", "WandbLogger"]);
    expect(byFlag.code).toBe(2);
    expect(byFlag.stderr).toContain("--logger: logger WandbLogger is not available: trace-bench has no Weights & Biases client");
    const inConfig = await runCli(["run", "--config", config(dir, "    logger: WandbLogger\n"), "--runs-dir", dir, "--run-id", "x"]);
    expect(inConfig.code).toBe(2);
    expect(inConfig.stderr).toMatch(/tb\.yaml:\d+: logger WandbLogger is not available/);
    expect(existsSync(join(dir, "x"))).toBe(false);
  });
});
