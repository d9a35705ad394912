/**
 * Parity scenario multiobjective-tasks, bbeh part (test/fixtures/parity/multiobjective-tasks.json):
 * internal:multiobjective_bbeh's bundle (objective, initial program, the first train examples)
 * and what its guide gives candidate programs on the first five train examples, with each
 * program run in the python3 worker pool (the real sandbox). The recorded set's programs are not
 * in the file: the four whose behaviour is evident from their names and results are written
 * here ("eval_expression" is not: its recorded answers fit no evident program).
 */
import { afterAll, describe, expect, it } from "vitest";
import { bbehSplits, multiobjectiveBbehTask, normalizePalAnswer, stripCodeFences, BBEH_INITIAL_CODE } from "../../../adapters/tasks/internal/multiobjective-bbeh.js";
import { BBEH_BOOLEAN_EMBEDDED_EXAMPLES } from "../../../adapters/tasks/internal/bbeh-boolean-examples.js";
import { pythonPalRunner } from "../../../adapters/tasks/internal/pal-runner.js";
import { objectiveConfigFromKwarg } from "../../../src/opt/objectives/objective-config-kwarg.js";
import { parityFixture } from "../../support/parity.js";

interface RecordedResult {
  readonly score: number;
  readonly feedback: string;
  readonly accuracy: number;
  readonly score_dict_keys: readonly string[];
}
interface RecordedBbeh {
  readonly objective_config: { mode: string; weights: Record<string, number>; minimize: string[]; seed: number };
  readonly initial_code: string;
  readonly n_train: number;
  readonly train_inputs_head: readonly string[];
  readonly train_infos_head: readonly string[];
  readonly optimizer_kwargs: Record<string, unknown>;
  readonly candidates: Record<string, readonly RecordedResult[]>;
}

const recorded = parityFixture<{ bbeh: RecordedBbeh }>("multiobjective-tasks").bbeh;
const runner = pythonPalRunner(2);
afterAll(() => runner.close());

const PROGRAMS: Record<string, string> = {
  initial: BBEH_INITIAL_CODE,
  always_true: "result = 'True'\n",
  syntax_error: "result = str(eval(question\n",
  no_result: "answer = question.strip()\n",
};

describe("parity multiobjective-tasks: internal:multiobjective_bbeh", () => {
  it("builds the original's bundle: objective, initial program, optimizer kwargs and the first train examples", () => {
    const bundle = multiobjectiveBbehTask(runner, {});
    expect(bundle.parameters.map((p) => [p.name, p.kind, p.value, p.trainable])).toEqual([["program", "code", recorded.initial_code, true]]);
    expect(bundle.optimizer_kwargs).toEqual(recorded.optimizer_kwargs);
    expect(bundle.train_dataset.inputs).toHaveLength(recorded.n_train);
    expect(bundle.train_dataset.inputs.slice(0, 3)).toEqual(recorded.train_inputs_head);
    expect(bundle.train_dataset.infos.slice(0, 3)).toEqual(recorded.train_infos_head);
    const objective = objectiveConfigFromKwarg(bundle.metadata["objective_config"])!;
    expect(objective).toMatchObject({ mode: recorded.objective_config.mode, weights: recorded.objective_config.weights, seed: recorded.objective_config.seed });
    expect([...objective.minimize]).toEqual(recorded.objective_config.minimize);
    expect(objectiveConfigFromKwarg(multiobjectiveBbehTask(runner, { objective_mode: "pareto" }).metadata["objective_config"])!.mode).toBe("pareto");
  });

  it("splits as the original: numpy's shuffle order, n_train then n_val, never more than there are", () => {
    const { train, val } = bbehSplits(BBEH_BOOLEAN_EMBEDDED_EXAMPLES, 15, 5, 42);
    expect(train).toHaveLength(15);
    expect(val).toHaveLength(5);
    expect(new Set([...train, ...val].map((e) => e.input)).size).toBe(20);
    const few = bbehSplits(BBEH_BOOLEAN_EMBEDDED_EXAMPLES, 18, 5, 42);
    expect([few.train.length, few.val.length]).toEqual([18, 2]);
  });

  it.each(Object.keys(PROGRAMS))("candidate '%s' scores as recorded on the first five train examples", async (name) => {
    const bundle = multiobjectiveBbehTask(runner, {});
    const want = recorded.candidates[name]!;
    for (const [i, expected] of want.entries()) {
      const code = await bundle.agent.run(bundle.train_dataset.inputs[i], { program: PROGRAMS[name]! }, {});
      const got = await bundle.guide.evaluate(bundle.train_dataset.inputs[i], code, bundle.train_dataset.infos[i], {});
      expect([got.score, got.feedback, got.scores!.accuracy]).toEqual([expected.score, expected.feedback, expected.accuracy]);
      expect(Object.keys(got.scores!)).toEqual(expected.score_dict_keys);
      // CPU seconds, kept to hundredths: these programs take well under 5 ms.
      expect(got.scores!.execution_time_s).toBe(0);
    }
  });

  it("a program that burns CPU records its CPU time in hundredths of a second", async () => {
    const bundle = multiobjectiveBbehTask(runner, {});
    const busy = await bundle.guide.evaluate("True is", "n = 0\nfor i in range(3_000_000):\n    n += i\nresult = 'True'\n", "True", {});
    expect(busy.score).toBe(1);
    expect(busy.scores!.execution_time_s).toBeGreaterThan(0.01);
    expect(Math.round(busy.scores!.execution_time_s * 100) / 100).toBe(busy.scores!.execution_time_s);
  });

  it("unwraps a fenced program and compares answers without case, punctuation or spaces", () => {
    expect(stripCodeFences("```python\nresult = 'True'\n```")).toBe("result = 'True'");
    expect(stripCodeFences("  result = 1  ")).toBe("result = 1");
    expect(normalizePalAnswer(" True. ")).toBe(normalizePalAnswer("true"));
    expect(normalizePalAnswer("Fal se!")).toBe("false");
  });
});
