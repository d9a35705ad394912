/**
 * `run --help` and a flag error of `run` are answered from the verb's flags alone (src/cli/run-spec.ts):
 * neither loads the run's engine (effect, bundled into it, nor better-sqlite3), so each costs what
 * a quick verb costs. A stub run does load both (lazy-adapters.test.ts), so each "not loaded" could fail.
 */
import { describe, expect, it } from "vitest";
import { describeRun } from "../support/crash-harness.js";
import { runCliTracingModules } from "../support/traced-cli.js";

const ENGINE = ["effect", "better-sqlite3"] as const;

describe("run's flags are answered before its engine loads", () => {
  it("run --help prints the flags and loads none of the engine", async () => {
    const r = await runCliTracingModules(["run", "--help"]);
    expect(r.code, describeRun("run --help", r)).toBe(0);
    expect(r.stdout).toContain("--config FILE");
    for (const name of ENGINE) expect(r.packages, name).not.toContain(name);
  });

  it("an unknown flag is a usage error (exit 2) that loads none of the engine", async () => {
    const r = await runCliTracingModules(["run", "--config", "configs/smoke.yaml", "--no-such-flag"]);
    expect(r.code, describeRun("run --no-such-flag", r)).toBe(2);
    expect(r.stderr).toContain("--no-such-flag");
    expect(r.stderr).toContain("trace-bench run --help");
    for (const name of ENGINE) expect(r.packages, name).not.toContain(name);
  });
});
