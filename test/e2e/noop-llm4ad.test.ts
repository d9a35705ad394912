/**
 * NoOpTrainer on an LLM4AD task (issue 34, docs/differences.md): its training step scores the
 * task's real code, where the original's step hands the parameter object to the evaluation and
 * fails in about a millisecond. So the step's score is the initial score, not an error.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../support/cli.js";
import { csvRows, eventsOf, singleRunDir } from "../support/run-dir.js";

describe("NoOpTrainer on an LLM4AD task", () => {
  it("makes one real evaluation per training step: the step scores what the initial evaluation scored", async () => {
    const dir = tempDir();
    const config = join(dir, "noop.yaml");
    writeFileSync(config, "mode: stub\nseeds: [1]\ntasks: [llm4ad:online_bin_packing_local]\ntrainers: [NoOpTrainer]\n");
    const r = await runCli(["run", "--config", config, "--runs-dir", dir]);
    expect(r.code, r.stderr).toBe(0);
    const runDir = singleRunDir(dir);
    const [row] = csvRows(join(runDir, "results.csv"));
    expect(row!.status).toBe("ok");
    const steps = eventsOf(runDir).filter((e) => e.type === "IterationCompleted");
    expect(steps).toHaveLength(1);
    expect(steps[0]!.data.score).toBe(Number(row!.score_val_initial));
    expect(steps[0]!.data.evaluations).toBe(1);
  }, 180_000);
});
