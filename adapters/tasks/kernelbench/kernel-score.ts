/**
 * A KernelBench verdict as a score and feedback. The original has no scalar guide (its docs report
 * the rate of correct kernels and the speed-up); trace-bench scores a candidate by its speed-up
 * over the reference (reference runtime / candidate runtime) when it compiles and is correct, and
 * 0 otherwise, with the compiler's errors, the output difference or the timings as feedback
 * (docs/differences.md).
 */
import type { GuideResult } from "../../../src/domain/guide.js";
import type { KernelEvaluation } from "./kernel-eval-server.js";

/** What a candidate that does not compile, is wrong, or whose evaluation failed scores. */
export const KERNEL_FAILURE_SCORE = 0;

/** Metadata keys the evaluation writes about what went wrong, in the order they are shown. */
const PROBLEM_KEYS = ["compilation_error", "cuda_error", "runtime_error", "other_error", "timeout_error", "error", "correctness_issue", "max_difference", "avg_difference"];
const MAX_DETAIL = 4000;

const shown = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));
const figure = (value: number): string => String(Number(value.toPrecision(4)));

function problems(metadata: Readonly<Record<string, unknown>>): string {
  const lines = PROBLEM_KEYS.filter((key) => metadata[key] !== undefined && metadata[key] !== null).map((key) => `${key}: ${shown(metadata[key])}`);
  const text = lines.join("\n");
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}\n...(cut)` : text;
}

const positive = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value > 0;

/**
 * The score of one evaluation. `referenceMs`: the reference model's runtime, measured the same way
 * (null when unknown; the server's `metadata.speedup`, when it gives one, is used first).
 */
export function kernelVerdict(evaluation: KernelEvaluation, referenceMs: number | null): GuideResult {
  if (evaluation.status === "failed") return { score: KERNEL_FAILURE_SCORE, feedback: `The evaluation failed: ${evaluation.error}` };
  const { result } = evaluation;
  const detail = problems(result.metadata);
  // The original marks a timed-out evaluation "not compiled"; the feedback says what happened.
  if (result.metadata.timeout_error !== undefined && result.metadata.timeout_error !== false && result.metadata.timeout_error !== null) {
    const limit = positive(result.metadata.timeout_seconds) ? ` of ${figure(result.metadata.timeout_seconds)} s` : "";
    return { score: KERNEL_FAILURE_SCORE, feedback: `The evaluation ran past its time limit${limit} (a kernel that hangs, or a build or run far too slow) and was stopped.` };
  }
  if (!result.compiled) return { score: KERNEL_FAILURE_SCORE, feedback: `The candidate did not compile.${detail ? `\n${detail}` : ""}` };
  if (!result.correctness) return { score: KERNEL_FAILURE_SCORE, feedback: `The candidate compiled, but its output differs from the reference's.${detail ? `\n${detail}` : ""}` };
  const fromServer = result.metadata.speedup;
  const speedup = positive(fromServer) ? fromServer : positive(result.runtime) && referenceMs !== null && positive(referenceMs) ? referenceMs / result.runtime : null;
  if (speedup === null) {
    return { score: 1, feedback: "The candidate is correct; no speed-up can be computed (its runtime or the reference's was not measured), so it is scored as fast as the reference (1.0)." };
  }
  const timing = positive(result.runtime) && referenceMs !== null && positive(referenceMs) ? ` Runtime ${figure(result.runtime)} ms against the reference's ${figure(referenceMs)} ms.` : "";
  return { score: speedup, feedback: `The candidate is correct.${timing} Speed-up over the reference: ${figure(speedup)}x.` };
}
