/**
 * A job whose every evaluation ends in an error (a verifier lost after the job started, a tool that
 * always fails) has no score at all: it ends `no_valid_candidate` with the error, ranks nowhere and
 * makes the run exit 1, where it used to end `ok` with an empty score. An empty split keeps the
 * original's rule: a null score and `ok`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli, tempDir, type CliResult } from "../support/cli.js";
import { csvRows, singleRunDir } from "../support/run-dir.js";

const SUITE = `
const numbers = { inputs: [1, 2, 3], infos: [2, 4, 6] };
const task = (taskId, guide, dataset) => ({
  taskId,
  parameters: [{ name: "factor", kind: "number", value: 1, description: "Multiplies the input.", trainable: true }],
  agent: { name: "Multiplier", program: { code: "output = input * factor" }, run: (input, values) => Number(input) * Number(values.factor) },
  guide,
  train_dataset: dataset,
  optimizer_kwargs: { objective: "Double the input." },
  metadata: { benchmark: "verifiers" },
});
const exact = { name: "Exact", evaluate: (_i, response, info) => ({ score: -Math.abs(response - info), feedback: "checked" }) };
const lost = { name: "LostVerifier", evaluate: () => { throw new Error("verifier unreachable: ECONNREFUSED 127.0.0.1:9"); } };
const TASKS = {
  lost_verifier: () => task("verifiers:lost_verifier", lost, numbers),
  healthy: () => task("verifiers:healthy", exact, numbers),
};
export default {
  name: "verifiers",
  list: () => Object.keys(TASKS).map((name) => "verifiers:" + name),
  knows: (taskId) => Object.hasOwn(TASKS, taskId.slice("verifiers:".length)),
  load: (taskId) => TASKS[taskId.slice("verifiers:".length)](),
};
`;

let run: CliResult;
let runDir: string;

beforeAll(async () => {
  const dir = tempDir();
  const suite = join(dir, "verifiers-suite.mjs");
  writeFileSync(suite, SUITE);
  const config = join(dir, "c.yaml");
  writeFileSync(config, "mode: stub\nseeds: [1]\ntasks: [verifiers:lost_verifier, verifiers:healthy]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 1}]\n");
  run = await runCli(["run", "--config", config, "--runs-dir", dir], { env: { TRACE_BENCH_TASK_MODULES: suite } });
  runDir = singleRunDir(dir);
}, 120_000);

describe("a job whose every evaluation ended in an error", () => {
  it("ends no_valid_candidate with the error, not ok with an empty score; the run exits 1", () => {
    expect(run.code, run.stderr).toBe(1);
    const rows = new Map(csvRows(join(runDir, "results.csv")).map((row) => [row.task_id, row]));
    const lost = rows.get("verifiers:lost_verifier")!;
    expect(lost.status).toBe("no_valid_candidate");
    expect(lost.score_val).toBe("");
    expect(lost.feedback).toBe("no_valid_candidate: no evaluation produced a score, each ended in an error; final evaluation: train_dataset: eval_error[0]: verifier unreachable: ECONNREFUSED 127.0.0.1:9");
    expect(rows.get("verifiers:healthy")!.status).toBe("ok");
    expect(csvRows(join(runDir, "leaderboard.csv")).map((row) => row.task_id)).toEqual(["verifiers:healthy"]);
    expect(run.stdout).toContain("Jobs: 1 no_valid_candidate, 1 ok");
  });

  it("replay rebuilds it and --verify accepts the log", async () => {
    const verified = await runCli(["replay", runDir, "--verify"]);
    expect(verified.code, verified.stderr).toBe(0);
  });
});
