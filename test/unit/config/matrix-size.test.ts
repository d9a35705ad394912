/** The matrix counted from its axes is the size of the matrix expanded, and names its axes. */
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../../src/config/config-file.js";
import { expandMatrix } from "../../../src/config/matrix.js";
import { matrixLimitProblem, matrixSize } from "../../../src/config/matrix-size.js";
import { resolveRunConfig, type RunConfig } from "../../../src/config/run-config.js";

const load = (text: string): RunConfig => resolveRunConfig(parseConfigText("cfg.yaml", text)).config;

describe("matrixSize", () => {
  const configs = {
    "one job": "tasks: [internal:numeric_param]\n",
    "tasks × seeds": "tasks: [internal:numeric_param, internal:multi_param]\nseeds: [1, 2, 3]\n",
    "trainers with and without variants": "tasks: [internal:numeric_param]\nseeds: [1, 2]\ntrainers:\n  - NoOpTrainer\n  - {id: PrioritySearch, params_variants: [{ps_steps: 1}, {ps_steps: 2}, {ps_steps: 3}]}\n",
    "a model list": "tasks: [internal:numeric_param]\nseeds: [1, 2]\nllm: {model: [a, b, c]}\ntrainers: [NoOpTrainer, PrioritySearch]\n",
    "one model in a list": "tasks: [internal:numeric_param]\nllm: {model: [a]}\n",
  };
  for (const [name, text] of Object.entries(configs)) {
    it(`${name}: the count is the expanded matrix's length`, () => {
      const config = load(text);
      expect(matrixSize(config).jobs).toBe(expandMatrix(config).length);
    });
  }

  it("names every axis, the model list only when there is one", () => {
    expect(matrixSize(load(configs["a model list"])).axes).toBe("1 task × 2 trainer variants × 3 models × 2 seeds");
    expect(matrixSize(load(configs["one job"])).axes).toBe("1 task × 1 trainer variant × 1 seed");
  });

  it("a matrix over the limit is a problem naming the count, the limit and the flag; at the limit it is none", () => {
    const size = matrixSize(load(configs["tasks × seeds"]));
    expect(matrixLimitProblem(size, 6)).toBeNull();
    expect(matrixLimitProblem(size, 5)).toBe("matrix: 6 jobs (2 tasks × 1 trainer variant × 3 seeds) is over the limit of 5 jobs; pass --max-jobs 6 to run them all, or make the matrix smaller");
  });
});
