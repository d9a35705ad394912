/**
 * framework dspy: the hf suite asks python3 whether it can import dspy, and skips the task with
 * the answer. Here dspy is not installed; a package named dspy put on PYTHONPATH (an empty one,
 * made by the test) turns the detection the other way, and the job is still skipped (this build
 * does not run DSPy programs), saying so instead.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HfSuite } from "../../../adapters/tasks/hf/hf-suite.js";
import { dspyUnavailableReason } from "../../../adapters/tasks/hf/dspy-framework.js";
import { pythonImportProblem } from "../../../adapters/sandbox/python-module-probe.js";
import { tempDir } from "../../support/cli.js";

const noDspy = { ...process.env, PYTHONPATH: "" };

describe("framework dspy", () => {
  it("skips the task naming why python3 cannot import dspy, and how to install it", async () => {
    expect(pythonImportProblem("dspy", noDspy)).toBe("ModuleNotFoundError: No module named 'dspy'");
    const suite = new HfSuite(noDspy);
    const load = suite.load("hf:hotpot_qa", { framework: "dspy" });
    await expect(load).rejects.toMatchObject({ _tag: "TaskUnavailableError" });
    await expect(load).rejects.toThrow(/framework dspy builds a DSPy agent in Python's dspy, which python3 cannot import here \(ModuleNotFoundError: No module named 'dspy'\); install it for the python3 on PATH \(pip install dspy\)/);
  });

  it("tells an importable dspy apart, and still skips: this build does not run DSPy programs", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "dspy"));
    writeFileSync(join(dir, "dspy", "__init__.py"), "");
    const withDspy = { ...process.env, PYTHONPATH: dir };
    expect(pythonImportProblem("dspy", withDspy)).toBeNull();
    expect(dspyUnavailableReason(withDspy)).toBe("framework dspy builds a DSPy agent in Python's dspy: python3 imports dspy here, but this build does not run DSPy programs yet");
    expect(pythonImportProblem("a_module_no_one_has", withDspy)).toMatch(/No module named 'a_module_no_one_has'/);
  });
});
