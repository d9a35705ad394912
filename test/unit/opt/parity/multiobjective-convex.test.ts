/**
 * Parity scenario multiobjective-tasks, convex part (test/fixtures/parity/multiobjective-tasks.json):
 * what the original's internal:multiobjective_convex computes at seeds 42 and 1 in both modes:
 * its initial parameter (the first line of the environment's first observation, from numpy's
 * PCG64 start point), objective and memory size, objective config, and for a sequence of
 * responses the score dict (on a copy), the reward and feedback (which step the environment)
 * and the attempts left.
 */
import { describe, expect, it } from "vitest";
import { convexGuideResult, multiobjectiveConvexTask } from "../../../../adapters/tasks/internal/multiobjective-convex.js";
import { SixHumpCamelEnv } from "../../../../adapters/tasks/internal/six-hump-camel.js";
import { parityFixture } from "../../../support/parity.js";

interface RecordedStep {
  response: string;
  score_dict: Record<string, number>;
  score: number;
  feedback: string;
  left_attempts_after: number;
}
interface RecordedCase {
  initial_param: string;
  objective: string;
  memory_size: number;
  objective_config: Record<string, unknown>;
  steps: RecordedStep[];
}
const fixture = parityFixture<{ convex: Record<string, RecordedCase> }>("multiobjective-tasks");
const cases = Object.entries(fixture.convex).map(([name, recorded]) => {
  const [, seed, mode] = /^seed(\d+)_(\w+)$/.exec(name)!;
  return { name, seed: Number(seed), mode: mode!, recorded };
});

describe("parity multiobjective-tasks: internal:multiobjective_convex", () => {
  it("the corpus has seeds 42 and 1 in both modes", () => {
    expect(cases.map((c) => c.name).sort()).toEqual(["seed1_pareto", "seed1_weighted", "seed42_pareto", "seed42_weighted"]);
  });

  it.each(cases)("$name: initial parameter, optimizer kwargs and objective config", ({ seed, mode, recorded }) => {
    const task = multiobjectiveConvexTask({ seed, objective_mode: mode });
    expect(task.parameters[0]!.value).toBe(recorded.initial_param);
    expect(task.optimizer_kwargs).toEqual({ objective: recorded.objective, memory_size: recorded.memory_size });
    expect(task.metadata["objective_config"]).toEqual(recorded.objective_config);
  });

  it.each(cases)("$name: each response's score dict, reward, feedback and attempts left", ({ seed, recorded }) => {
    const env = new SixHumpCamelEnv(200, 1.0, seed);
    expect(env.initialObservation().split("\n")[0]).toBe(recorded.initial_param);
    for (const step of recorded.steps) {
      const result = convexGuideResult(env, step.response);
      expect(result.scores).toEqual(step.score_dict);
      // Object.is: the original's −0.0 rewards stay −0.0.
      expect(Object.is(result.score, step.score)).toBe(true);
      expect(result.feedback).toBe(step.feedback);
      expect(env.leftAttempts).toBe(step.left_attempts_after);
    }
  });

  it("the task's guide steps one environment across calls (attempts run down), the score dicts a copy", async () => {
    const task = multiobjectiveConvexTask({ objective_mode: "pareto" });
    const first = await task.guide.evaluate(null, "x = [0.5, 0.5]", null, {});
    const again = await task.guide.evaluate(null, "x = [0.5, 0.5]", null, {});
    expect(first.feedback).toContain("You have 199 attempts left!");
    expect(again.feedback).toContain("You have 198 attempts left!");
    expect(again.scores).toEqual(first.scores);
  });
});
