/**
 * internal:multiobjective_bbeh's guide with a counting PAL runner (the real worker pool is in
 * test/int/internal/multiobjective-bbeh.test.ts): a program's outcome on a question is computed
 * once per job, and a run that got no answer is asked again.
 */
import { describe, expect, it } from "vitest";
import { bbehPalGuide, multiobjectiveBbehTask } from "../../../adapters/tasks/internal/multiobjective-bbeh.js";
import type { PalOutcome, PalRunner } from "../../../adapters/tasks/internal/pal-runner.js";

function countingRunner(outcome: (code: string, question: string, call: number) => PalOutcome | Error): PalRunner & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async run(code, question) {
      calls.push(`${code} | ${question}`);
      const result = outcome(code, question, calls.length);
      if (result instanceof Error) throw result;
      return result;
    },
    close() {},
  };
}

describe("internal:multiobjective_bbeh's guide", () => {
  it("runs a program once per question in a job, and again in another job", async () => {
    const runner = countingRunner((_code, question) => ({ result: question.startsWith("not") ? "False" : "True", error: null, executionTimeS: 0.0123 }));
    const guide = bbehPalGuide(runner);
    const first = await guide.evaluate("not True is", "result = ...", "False", {});
    const again = await guide.evaluate("not True is", "result = ...", "False", {});
    await guide.evaluate("True is", "result = ...", "True", {});
    expect(first).toEqual({ score: 1, feedback: "CORRECT: 'False'", scores: { accuracy: 1, execution_time_s: 0.01 } });
    expect(again).toEqual(first);
    expect(runner.calls).toEqual(["result = ... | not True is", "result = ... | True is"]);
    await bbehPalGuide(runner).evaluate("not True is", "result = ...", "False", {});
    expect(runner.calls).toHaveLength(3);
  });

  it("asks again after a run that got no answer", async () => {
    const runner = countingRunner((_code, _question, call) => (call === 1 ? new Error("the worker crashed") : { result: "True", error: null, executionTimeS: 0 }));
    const guide = bbehPalGuide(runner);
    await expect(guide.evaluate("True is", "result = 'True'", "True", {})).rejects.toThrow("the worker crashed");
    expect((await guide.evaluate("True is", "result = 'True'", "True", {})).score).toBe(1);
    expect(runner.calls).toHaveLength(2);
  });

  it("the agent hands on the program, fences and all, and the guide unwraps it", async () => {
    const runner = countingRunner(() => ({ result: null, error: "No 'result' variable set by code", executionTimeS: 0 }));
    const bundle = multiobjectiveBbehTask(runner, { n_train: 1 });
    const program = await bundle.agent.run(bundle.train_dataset.inputs[0], { program: "```python\nx = 1\n```" }, {});
    const result = await bundle.guide.evaluate(bundle.train_dataset.inputs[0], program, bundle.train_dataset.infos[0], {});
    expect(result).toEqual({ score: 0, feedback: "EXEC_ERROR: No 'result' variable set by code", scores: { accuracy: 0, execution_time_s: 0 } });
    expect(runner.calls).toEqual([`x = 1 | ${String(bundle.train_dataset.inputs[0])}`]);
  });
});
