/**
 * KernelBench verdicts as scores: 0 for a candidate that does not compile, is wrong, or whose
 * evaluation failed (with the evaluation's own words as feedback); the speed-up over the reference
 * otherwise, the server's `metadata.speedup` first.
 */
import { describe, expect, it } from "vitest";
import type { KernelExecResult } from "../../../adapters/tasks/kernelbench/kernel-eval-server.js";
import { KERNEL_FAILURE_SCORE, kernelVerdict } from "../../../adapters/tasks/kernelbench/kernel-score.js";

const result = (fields: Partial<KernelExecResult>): KernelExecResult => ({ compiled: true, correctness: true, metadata: {}, runtime: -1, runtime_stats: {}, ...fields });
const completed = (fields: Partial<KernelExecResult>) => ({ status: "completed" as const, result: result(fields), device: "cuda:0" });

describe("kernelVerdict", () => {
  it("a candidate that does not compile scores the failure value, and the compiler's error is the feedback", () => {
    const verdict = kernelVerdict(completed({ compiled: false, correctness: false, metadata: { compilation_error: "error: identifier \"blockIdx\" is undefined", hardware: "H100" } }), 2);
    expect(verdict.score).toBe(KERNEL_FAILURE_SCORE);
    expect(verdict.feedback).toBe('The candidate did not compile.\ncompilation_error: error: identifier "blockIdx" is undefined');
  });

  it("a candidate that compiles but is wrong scores the failure value and is told how far off it was", () => {
    const verdict = kernelVerdict(completed({ correctness: false, metadata: { max_difference: ["0.512"], avg_difference: ["0.031"], correctness_issue: "Output mismatch" } }), 2);
    expect(verdict.score).toBe(0);
    expect(verdict.feedback).toBe('The candidate compiled, but its output differs from the reference\'s.\ncorrectness_issue: Output mismatch\nmax_difference: ["0.512"]\navg_difference: ["0.031"]');
  });

  it("a correct candidate scores reference runtime / its runtime", () => {
    const verdict = kernelVerdict(completed({ runtime: 0.5 }), 2);
    expect(verdict.score).toBe(4);
    expect(verdict.feedback).toBe("The candidate is correct. Runtime 0.5 ms against the reference's 2 ms. Speed-up over the reference: 4x.");
  });

  it("a slower correct candidate scores under 1, still above the failure value", () => {
    expect(kernelVerdict(completed({ runtime: 3 }), 1.5).score).toBe(0.5);
  });

  it("the server's metadata.speedup, when it gives one, is the score", () => {
    expect(kernelVerdict(completed({ runtime: 1, metadata: { speedup: 1.75 } }), 4).score).toBe(1.75);
  });

  it("a correct candidate whose runtime was not measured scores as fast as the reference, and says so", () => {
    const verdict = kernelVerdict(completed({ runtime: -1 }), 2);
    expect(verdict.score).toBe(1);
    expect(verdict.feedback).toContain("not measured");
    expect(kernelVerdict(completed({ runtime: 0.8 }), null).score).toBe(1);
  });

  it("an evaluation that failed on the server scores the failure value with the server's error", () => {
    expect(kernelVerdict({ status: "failed", error: "CUDA error: an illegal memory access was encountered", device: "cuda:1" }, 2)).toEqual({
      score: 0,
      feedback: "The evaluation failed: CUDA error: an illegal memory access was encountered",
    });
  });

  it("a very long error is cut, so one candidate cannot flood the optimizer's prompt", () => {
    const verdict = kernelVerdict(completed({ compiled: false, metadata: { compilation_error: "x".repeat(10_000) } }), 2);
    expect(verdict.feedback.length).toBeLessThan(4200);
    expect(verdict.feedback.endsWith("...(cut)")).toBe(true);
  });
});
