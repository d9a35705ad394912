/**
 * A job_timeout no timer can hold is a config error naming the key and the range, whether it is
 * YAML's infinity or a finite number past setTimeout's 24.8 days. The CLI's side (`validate
 * --strict` and `run` refuse it before a run dir exists) is test/e2e/config-limits.test.ts's, with `.inf`.
 */
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/config/config-error.js";
import { parseConfigText } from "../../../src/config/config-file.js";
import { resolveRunConfig } from "../../../src/config/run-config.js";

const trivial = "mode: stub\ntasks: [internal:numeric_param]\ntrainers: [NoOpTrainer]\n";

function problemsOf(text: string): readonly string[] {
  try {
    resolveRunConfig(parseConfigText("c.yaml", text));
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error("expected a ConfigError, but nothing was thrown");
}

describe("job_timeout a timer cannot hold", () => {
  for (const value of [".inf", "1.0e+12", "2147484"]) {
    it(`job_timeout: ${value} is refused, naming the key and the range`, () => {
      const [line, ...rest] = problemsOf(`job_timeout: ${value}\n${trivial}`);
      expect(rest).toEqual([]);
      expect(line).toContain("c.yaml:1: job_timeout:");
      expect(line).toContain("a number of seconds from 0 to 2147483");
    });
  }

  it("the range's end is accepted", () => {
    expect(resolveRunConfig(parseConfigText("c.yaml", `job_timeout: 2147483\n${trivial}`)).config.job_timeout).toBe(2147483);
  });
});
