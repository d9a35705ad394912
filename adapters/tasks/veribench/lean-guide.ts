/**
 * The compiler guide (opt-in: `eval_kwargs.guide: lean`), as the original's Lean guide scores: 1.0
 * when the candidate compiles without an error, else 0.0 with the compiler's errors as feedback.
 * Like the original, an `import` that is not at the top of the file ("invalid 'import' command") is
 * deleted and the code checked again, until no such error is left; that check decides. Warnings
 * (a `sorry`, an unused variable) are not errors.
 */
import type { Guide, GuideResult } from "../../../src/domain/guide.js";
import { compileLean, CANDIDATE_FILE } from "./lean-compile.js";
import { failureFeedback, parseDiagnostics, type LeanDiagnostic } from "./lean-diagnostics.js";
import type { LeanToolchain } from "./lean-toolchain.js";

const INVALID_IMPORT = "invalid 'import' command";

/** Lean's errors; an exit code other than 0 with no error message is an error too (a crash, a bad flag). */
function errorsOf(exitCode: number | null, output: string): LeanDiagnostic[] {
  const errors = parseDiagnostics(output, CANDIDATE_FILE).filter((d) => d.severity === "error");
  if (errors.length === 0 && exitCode !== 0) {
    return [{ line: 1, column: 0, severity: "error", message: `the Lean compiler exited with ${exitCode ?? "a signal"} and no error message: ${output.trim().slice(0, 2000) || "(no output)"}` }];
  }
  return errors;
}

export function leanCompilerGuide(toolchain: LeanToolchain, timeoutSeconds: number, env: NodeJS.ProcessEnv = process.env): Guide {
  return {
    name: "trace_bench.veribench.LeanCompilerGuide",
    async evaluate(_input, response, _info, context): Promise<GuideResult> {
      let source = typeof response === "string" ? response : String(response);
      let removedImports = 0;
      for (;;) {
        const result = await compileLean(toolchain, source, { timeoutSeconds, env, ...(context.signal ? { signal: context.signal } : {}) });
        if (result.kind === "timeout") {
          return { score: 0.0, feedback: `Lean compilation did not finish within ${result.seconds} s (TimeoutError): the code may loop forever or be too slow to check; simplify proofs and avoid unbounded #eval.` };
        }
        const errors = errorsOf(result.exitCode, result.output);
        const lines = source.split("\n");
        const misplaced = new Set(errors.filter((e) => e.message.includes(INVALID_IMPORT) && e.line >= 1 && e.line <= lines.length).map((e) => e.line));
        if (misplaced.size > 0) {
          source = lines.filter((_, i) => !misplaced.has(i + 1)).join("\n");
          removedImports += misplaced.size;
          continue;
        }
        const note = removedImports > 0 ? `\n(${removedImports} misplaced import line(s) were removed before this check.)` : "";
        if (errors.length === 0) return { score: 1.0, feedback: `Lean compilation succeeded: no errors.${note}` };
        return { score: 0.0, feedback: `${failureFeedback(errors, source)}${note}` };
      }
    },
  };
}
