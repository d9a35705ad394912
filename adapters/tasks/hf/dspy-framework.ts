/**
 * `eval_kwargs.framework: dspy` (and DSPyTrainer, which asks for it): the original builds a DSPy
 * program in Python's dspy and lets DSPy's optimizers train it. This build never imitates DSPy;
 * it runs on Python's own dspy or not at all, so a job is skipped with the reason: dspy is not
 * importable by the python3 on PATH, or it is and this build does not yet run DSPy programs
 * (their LM would be the job's loopback audit endpoint, in the python worker pool).
 */
import { pythonImportProblem } from "../../sandbox/python-module-probe.js";

export function dspyUnavailableReason(env: NodeJS.ProcessEnv = process.env): string {
  const problem = pythonImportProblem("dspy", env);
  if (problem !== null) return `framework dspy builds a DSPy agent in Python's dspy, which python3 cannot import here (${problem}); install it for the python3 on PATH (pip install dspy)`;
  return "framework dspy builds a DSPy agent in Python's dspy: python3 imports dspy here, but this build does not run DSPy programs yet";
}
