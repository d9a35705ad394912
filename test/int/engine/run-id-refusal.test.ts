/**
 * Issue 10 item 1: a run id is a plain name of a folder inside the runs dir. `planRun` refuses one
 * with a path in it, from `--run-id` or the config, before it creates anything (the CLI's exit 2
 * and one line for such an id: e2e/run-dir-faults.test.ts and e2e/run-validation.test.ts).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { builtinTaskRegistry } from "../../../adapters/tasks/index.js";
import { RunDirError } from "../../../src/engine/run-dir-error.js";
import { planRun } from "../../../src/engine/run-plan.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function workspace(yaml: string): { dir: string; config: string; runs: string } {
  const dir = mkdtempSync(join(tmpdir(), "trace-bench-run-id-"));
  dirs.push(dir);
  const config = join(dir, "config.yaml");
  writeFileSync(config, `tasks: [internal:numeric_param]\ntrainers: [NoOpTrainer]\n${yaml}`);
  return { dir, config, runs: join(dir, "runs") };
}

function refusal(plan: () => unknown): string {
  try {
    plan();
  } catch (error) {
    expect(error).toBeInstanceOf(RunDirError);
    return (error as RunDirError).problem;
  }
  throw new Error("planRun accepted the run id");
}

describe("a run id with a path in it", () => {
  const registry = builtinTaskRegistry();

  it.each(["../x", "a/b", "..", "/tmp/abs", ".hidden"])("--run-id %s is refused, naming the flag and the fix, and nothing is created", (id) => {
    const { dir, config, runs } = workspace("");
    const problem = refusal(() => planRun({ configPath: config, runsDir: runs, runId: id }, registry, new Date()));
    expect(problem).toMatch(new RegExp(`^--run-id: ${JSON.stringify(id).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} is not a plain name .*use letters, digits, '\\.', '_' and '-' only`));
    expect(readdirSync(dir)).toEqual(["config.yaml"]);
  });

  it("a config's run_id is held to the same rule, and named as the config's", () => {
    const { config, runs } = workspace("run_id: ../elsewhere\n");
    expect(refusal(() => planRun({ configPath: config, runsDir: runs }, registry, new Date()))).toMatch(/^run_id in .*config\.yaml: "\.\.\/elsewhere" is not a plain name/);
    expect(existsSync(runs)).toBe(false);
  });

  it("a plain name is accepted", () => {
    const { config, runs } = workspace("");
    expect(planRun({ configPath: config, runsDir: runs, runId: "my-run.1" }, registry, new Date()).runId).toBe("my-run.1");
  });
});
