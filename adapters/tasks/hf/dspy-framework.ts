/**
 * `eval_kwargs.framework: dspy` (and DSPyTrainer, which asks for it): the original builds a DSPy
 * program in Python's dspy. This build never imitates DSPy: it runs on Python's own dspy (see
 * dspy-agent.ts) or not at all, so without an importable dspy the job is skipped with the reason.
 */
import { pythonImportProblem } from "../../sandbox/python-module-probe.js";

/** Why framework dspy cannot run here, or null when python3 imports dspy. */
export function dspyUnavailableReason(env: NodeJS.ProcessEnv = process.env): string | null {
  const problem = pythonImportProblem("dspy", env);
  if (problem === null) return null;
  return `framework dspy builds a DSPy agent in Python's dspy, which python3 cannot import here (${problem}); install it for the python3 on PATH (pip install dspy)`;
}
