/**
 * framework dspy: the hf suite asks python3 whether it can import dspy, and skips the task with
 * the answer. Here dspy is not installed; the stand-in dspy put on PYTHONPATH turns the detection
 * the other way, and the suite builds the original's DSPy agents (run by dspy, never imitated).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HfSuite } from "../../../adapters/tasks/hf/hf-suite.js";
import { dspyUnavailableReason } from "../../../adapters/tasks/hf/dspy-framework.js";
import { pythonImportProblem } from "../../../adapters/sandbox/python-module-probe.js";
import { REPO_ROOT, tempDir } from "../../support/cli.js";
import { GSM8K_TRAIN, HOTPOT_TRAIN, writeJsonl } from "../../support/hf-datasets.js";

/** A stand-in for Python's dspy (test/support/dspy-stand-in): PyPI cannot be reached here. */
const DSPY_STAND_IN = join(REPO_ROOT, "test", "support", "dspy-stand-in");

const noDspy = { ...process.env, PYTHONPATH: "" };

describe("framework dspy", () => {
  it("skips the task naming why python3 cannot import dspy, and how to install it", async () => {
    expect(pythonImportProblem("dspy", noDspy)).toBe("ModuleNotFoundError: No module named 'dspy'");
    const suite = new HfSuite(noDspy);
    const load = suite.load("hf:hotpot_qa", { framework: "dspy" });
    await expect(load).rejects.toMatchObject({ _tag: "TaskUnavailableError" });
    await expect(load).rejects.toThrow(/framework dspy builds a DSPy agent in Python's dspy, which python3 cannot import here \(ModuleNotFoundError: No module named 'dspy'\); install it for the python3 on PATH \(pip install dspy\)/);
  });

  it("with an importable dspy (the stand-in on PYTHONPATH), builds the original's DSPy agents: instructions trainable, code tasks refused", async () => {
    const withDspy = { ...process.env, PYTHONPATH: DSPY_STAND_IN };
    expect(pythonImportProblem("dspy", withDspy)).toBeNull();
    expect(dspyUnavailableReason(withDspy)).toBeNull();
    expect(pythonImportProblem("a_module_no_one_has", withDspy)).toMatch(/No module named 'a_module_no_one_has'/);

    const data = tempDir();
    writeJsonl(join(data, "hotpotqa", "hotpot_qa", "distractor", "train.jsonl"), HOTPOT_TRAIN);
    writeJsonl(join(data, "openai", "gsm8k", "main", "train.jsonl"), GSM8K_TRAIN);
    const suite = new HfSuite(withDspy);
    try {
      const hotpot = await suite.load("hf:hotpot_qa", { framework: "dspy", data_dir: data, num_train: 2, initial_instructions: "Answer briefly.", num_validate: 0, num_test: 0 });
      expect(hotpot.agent.name).toBe("DSPyHotpotQAAgent");
      expect(hotpot.parameters).toEqual([expect.objectContaining({ name: "instructions", kind: "text", value: "Answer briefly.", trainable: true })]);
      expect(hotpot.metadata.framework).toBe("dspy");
      const gsm8k = await suite.load("hf:gsm8k", { framework: "dspy", data_dir: data, num_train: 2, num_validate: 0, num_test: 0 });
      expect(gsm8k.agent.name).toBe("DSPyBBEHAgent");
      expect(gsm8k.parameters[0]!.value).toBe("Given the fields `question`, produce the fields `answer`.");
      await expect(suite.load("hf:humaneval", { framework: "dspy", data_dir: data })).rejects.toThrow(/hf:humaneval: code-synthesis tasks have a Trace agent only; run them with framework: trace/);
    } finally {
      suite.close();
    }
  });
});
