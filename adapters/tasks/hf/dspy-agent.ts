/**
 * framework dspy with Python's dspy importable: the original's DSPy agents, run by dspy itself
 * (python/dspy_agent.py) in the python agent worker pool, never imitated here. Each example is one
 * run of the DSPy program with its LM pointed at the job's loopback audit endpoint, so DSPy's calls
 * are recorded with role agent, journaled and budgeted like our own. The trainable value is the
 * signature's instructions (what DSPy's optimizers rewrite); the answer, a plain string, is scored
 * by the task's guide.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Agent } from "../../../src/domain/agent.js";
import type { ParameterSpec } from "../../../src/domain/parameter.js";
import { packageRoot } from "../../../src/fs/package-root.js";
import type { PythonAgentRunner } from "../../sandbox/python-agent-runner.js";
import type { HfExample } from "./hf-example.js";

export type DspyAgentKind = "hfqa" | "bbeh";

/** DSPy's own instructions for a "question -> answer" signature that names none. */
export const DSPY_BBEH_INSTRUCTIONS = "Given the fields `question`, produce the fields `answer`.";

/** Seconds one example's DSPy program may take (its LLM calls included). */
const DSPY_EXAMPLE_TIMEOUT_S = 300;

let programText: string | null = null;
const program = (): string => (programText ??= readFileSync(join(packageRoot(), "adapters", "tasks", "hf", "python", "dspy_agent.py"), "utf8"));

export function dspyParameters(kind: DspyAgentKind, initialInstructions: string): ParameterSpec[] {
  const value = kind === "bbeh" ? DSPY_BBEH_INSTRUCTIONS : initialInstructions;
  return [{ name: "instructions", kind: "text", value, description: "The instructions of the DSPy program's Predict signature (what DSPy's optimizers rewrite).", trainable: true }];
}

export function dspyAgent(kind: DspyAgentKind, runner: () => PythonAgentRunner): Agent {
  return {
    name: kind === "bbeh" ? "DSPyBBEHAgent" : "DSPyHotpotQAAgent",
    program: { code: program(), documentation: { answer: "Runs the DSPy Predict program on one example with the given signature instructions." } },
    async run(input, values, context) {
      // BBEH-style datasets give the question alone; question-answering ones the whole example.
      const example: Pick<HfExample, "question" | "context"> = typeof input === "string" ? { question: input, context: "" } : (input as HfExample);
      const endpoint = context.llm?.endpoint;
      // DSPy makes its own requests: only the job's audit endpoint may receive them.
      if (endpoint === undefined) throw new Error("a DSPy agent needs the job's loopback audit endpoint, and the engine gave it none (context.llm.endpoint)");
      const outcome = await runner().run(
        { code: program(), functionName: "answer", args: [kind, String(values.instructions ?? ""), example.question, example.context], endpoint: await endpoint(), timeout: DSPY_EXAMPLE_TIMEOUT_S },
        context.signal,
      );
      if ("error" in outcome) throw new Error(`the DSPy program failed: ${outcome.error}`);
      return String(outcome.output ?? "");
    },
  };
}
