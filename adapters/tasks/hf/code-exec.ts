/**
 * Code-generation semantics (HumanEval, MBPP): the reply is a Python function (a ``` fence is
 * unwrapped); it scores 1 when the dataset's unit tests pass in the python worker pool within the
 * entry's `timeout`, else 0 with the failing exception and line as feedback.
 */
import { WorkerFailure } from "../../sandbox/worker-failure.js";
import type { CodeRunner } from "./code-runner.js";
import { asExample, hfExample, requireField, rowGet, type HfRow } from "./hf-example.js";
import type { HfTaskEntry } from "./hf-task-entry.js";
import { questionsDataset, type HfTaskType } from "./hf-task-type.js";
import { pyStr, pyStrip } from "./hf-text.js";

export const DEFAULT_CODE_TIMEOUT_S = 10;

/** The first fenced block's body (its python/py/empty language line dropped), else the whole reply. */
export function extractCode(reply: string): string {
  if (!reply.includes("```")) return reply;
  const parts = reply.split("```");
  if (parts.length < 2) return reply;
  const block = parts[1]!;
  const newline = block.indexOf("\n");
  if (newline >= 0) {
    const first = block.slice(0, newline);
    if (["python", "py", ""].includes(pyStrip(first).toLowerCase())) return block.slice(newline + 1);
  }
  return block;
}

export function codeExecType(runner: CodeRunner, timeoutSeconds: number): HfTaskType {
  return {
    key: "code_exec",
    guideName: "code_exec.CodeExecGuide",
    formatContext: () => "",
    rowToExamples(row: HfRow, entry: HfTaskEntry) {
      const promptField = entry.question_field ?? "prompt";
      const testField = entry.test_field ?? "test";
      const entryField = entry.entry_field ?? "entry_point";
      requireField(row, promptField, "prompt", "Code");
      requireField(row, testField, "test", "Code");
      const rawTest = row[testField];
      const test = Array.isArray(rawTest) ? rawTest.map(pyStr).join("\n") : pyStr(rawTest);
      const entryPoint = pyStr(rowGet(row, entryField, ""));
      const setup = entry.setup_field ? pyStr(rowGet(row, entry.setup_field, "")) : "";
      return [hfExample(pyStr(row[promptField]), "", entryPoint, { test, entry_point: entryPoint, setup })];
    },
    makeDataset: questionsDataset,
    async score(_task, reply, info, context) {
      const candidate = extractCode(reply);
      if (pyStrip(candidate) === "") return { score: 0, feedback: "Empty code response; produce a complete function definition." };
      const meta = asExample(info).meta;
      let outcome;
      try {
        outcome = await runner.run({ candidate, test: pyStr(meta.test ?? ""), entryPoint: pyStr(meta.entry_point ?? ""), setup: pyStr(meta.setup ?? ""), timeout: timeoutSeconds }, context.signal);
      } catch (error) {
        // A worker killed at its hard deadline is the candidate's doing: a failed candidate, not a failed job.
        if (error instanceof WorkerFailure && error.kind === "timeout") outcome = { passed: false, detail: `timed out after ${timeoutSeconds}s — the function likely has an infinite loop or is far too slow; ensure it terminates` };
        else throw error;
      }
      if (outcome.passed) return { score: 1, feedback: "The implementation passes all unit tests." };
      return { score: 0, feedback: `The implementation fails: ${outcome.detail}. Revise the function so this specific failure is resolved while keeping all other cases correct.` };
    },
  };
}
