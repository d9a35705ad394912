/**
 * What the local back end answered on a real GPU (benchmarks/kernelbench/gpu-check.sh on an H100,
 * recorded in test/fixtures/kernelbench/gpu-check-h100.json), read by the TypeScript side as it
 * reads any KernelExecResult: each answer has the shape the engine accepts, and kernel-score.ts
 * scores and explains it as a user should see it.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { KernelEvaluation } from "../../../adapters/tasks/kernelbench/kernel-eval-server.js";
import { KERNEL_FAILURE_SCORE, kernelVerdict } from "../../../adapters/tasks/kernelbench/kernel-score.js";

interface RecordedAnswer {
  readonly name: string;
  readonly problems: readonly string[];
  readonly reply: { readonly ok: boolean; readonly result: Record<string, unknown> };
}

const FIXTURE = fileURLToPath(new URL("../../fixtures/kernelbench/gpu-check-h100.json", import.meta.url));
const recorded = JSON.parse(readFileSync(FIXTURE, "utf8")) as { answers: RecordedAnswer[] };
const answer = (name: string) => recorded.answers.find((a) => a.name === name)!;

/** As the local evaluator hands a worker's answer to the scorer. */
function evaluationOf(name: string): KernelEvaluation {
  const result = answer(name).reply.result;
  return { status: "completed", device: "cuda:0", result: result as unknown as Extract<KernelEvaluation, { status: "completed" }>["result"] };
}

const referenceOf = (name: string) => (answer(name).reply.result.metadata as { reference_runtime?: number }).reference_runtime ?? null;

describe("the H100's answers, as the TypeScript side reads them", () => {
  it("every answer is a KernelExecResult of the shape the engine accepts, and the check found each as expected", () => {
    expect(recorded.answers.map((a) => a.name)).toEqual(["correct_inline_cuda", "incorrect_inline_cuda", "correct_inline_cuda_again", "reference_itself", "wrong_shape", "hangs", "compile_error"]);
    for (const { reply, problems } of recorded.answers) {
      expect(reply.ok).toBe(true);
      expect(problems).toEqual([]);
      expect(typeof reply.result.compiled).toBe("boolean");
      expect(typeof reply.result.correctness).toBe("boolean");
      expect(typeof reply.result.runtime).toBe("number");
      expect(reply.result.metadata).toBeTypeOf("object");
      expect(reply.result.runtime_stats).toBeTypeOf("object");
    }
  });

  it("a correct kernel scores its speed-up over the reference, timed on the same GPU", () => {
    const result = answer("correct_inline_cuda").reply.result as { runtime: number; metadata: { speedup: number; reference_runtime: number; hardware: string } };
    expect(result.metadata.hardware).toBe("NVIDIA H100 80GB HBM3");
    const verdict = kernelVerdict(evaluationOf("correct_inline_cuda"), referenceOf("correct_inline_cuda"));
    expect(verdict.score).toBe(result.metadata.speedup);
    expect(verdict.score).toBeGreaterThan(0);
    expect(verdict.feedback).toBe(`The candidate is correct. Runtime ${result.runtime} ms against the reference's ${result.metadata.reference_runtime} ms. Speed-up over the reference: ${result.metadata.speedup}x.`);
  });

  it("a kernel that compiles but computes something else scores the failure score, with the differences as feedback", () => {
    const verdict = kernelVerdict(evaluationOf("incorrect_inline_cuda"), null);
    expect(verdict.score).toBe(KERNEL_FAILURE_SCORE);
    expect(verdict.feedback).toMatch(/^The candidate compiled, but its output differs from the reference's\.\ncorrectness_issue: Output mismatch\nmax_difference: \["0\.\d+",/);
    expect(kernelVerdict(evaluationOf("wrong_shape"), null)).toEqual({
      score: KERNEL_FAILURE_SCORE,
      feedback: "The candidate compiled, but its output differs from the reference's.\ncorrectness_issue: Output shape mismatch: Expected (32, 65536), got (32, 1024)",
    });
  });

  it("a kernel that does not compile, or runs past the limit, scores the failure score saying so", () => {
    const broken = kernelVerdict(evaluationOf("compile_error"), null);
    expect(broken.score).toBe(KERNEL_FAILURE_SCORE);
    expect(broken.feedback).toMatch(/^The candidate did not compile\.\ncompilation_error: RuntimeError: Error building extension 'trace_bench_relu_broken'/);
    expect(broken.feedback).toContain('error: identifier "undeclared_value" is undefined');
    expect(kernelVerdict(evaluationOf("hangs"), null)).toEqual({ score: KERNEL_FAILURE_SCORE, feedback: "The evaluation ran past its time limit of 20 s (a kernel that hangs, or a build or run far too slow) and was stopped." });
  });

  it("a build found again in the cache is not compiled again", () => {
    const first = answer("correct_inline_cuda");
    const again = answer("correct_inline_cuda_again");
    expect((first.reply.result.metadata as { build_cached: boolean }).build_cached).toBe(false);
    expect((again.reply.result.metadata as { build_cached: boolean; build_dir: string }).build_cached).toBe(true);
    expect((again.reply.result.metadata as { build_dir: string }).build_dir).toBe((first.reply.result.metadata as { build_dir: string }).build_dir);
    expect((again as unknown as { seconds: number }).seconds).toBeLessThan((first as unknown as { seconds: number }).seconds);
  });
});
