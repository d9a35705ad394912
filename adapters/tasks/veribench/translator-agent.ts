/**
 * The translator agent (`eval_kwargs.agent: translator`): an LLM writes the Lean 4 translation.
 * A fixed system prompt asks for the four parts VeriBench grades (a doc comment, the
 * implementation, unit tests, correctness theorems with proofs); the trainable
 * `additional_instructions` follow it; the task's query is the user message. The reply's first
 * ```lean block is the answer (the whole reply when it has none). The call goes through the
 * engine's audited `context.llm`, role "agent".
 */
import type { Agent } from "../../../src/domain/agent.js";
import type { ParameterSpec } from "../../../src/domain/parameter.js";
import type { TaskCallContext } from "../../../src/domain/task-call-context.js";

export const TRANSLATOR_SYSTEM_PROMPT = [
  "You translate Python programs into Lean 4. Write one Lean 4 file with four parts, in this order:",
  "1. a doc comment (/-! ... -/) that says what the program computes;",
  "2. the implementation: definitions that compute what the Python code computes;",
  "3. unit tests: `#eval` lines or `example ... := by decide` checks taken from the Python tests;",
  "4. correctness theorems about the implementation, each with a complete proof (no `sorry`).",
  "The file must compile with Lean 4 and its core library alone. Answer with the file in one ```lean code block.",
].join("\n");

export const DEFAULT_ADDITIONAL_INSTRUCTIONS = "Keep the translation faithful to the Python code and prefer simple proofs by induction, simp or decide.";

const DESCRIPTION = "[ParameterNode] Instructions added to the translator's system prompt: how to translate the Python code into Lean 4 that compiles, with unit tests and proved theorems.";

/** Lean gets the most room the original gave it: long files with proofs. */
const MAX_TOKENS = 8192;

export function translatorParameters(): ParameterSpec[] {
  return [{ name: "additional_instructions", kind: "text", value: DEFAULT_ADDITIONAL_INSTRUCTIONS, description: DESCRIPTION, trainable: true }];
}

/** The first ```lean block of a reply, else its first fenced block, else the reply itself. */
export function leanFromReply(reply: string): string {
  const lean = /```[ \t]*lean4?[ \t]*\r?\n([\s\S]*?)```/i.exec(reply);
  if (lean !== null) return lean[1]!.trim();
  const fenced = /```[^\n]*\n([\s\S]*?)```/.exec(reply);
  return (fenced !== null ? fenced[1]! : reply).trim();
}

export function translatorMessages(additionalInstructions: string, taskInput: string) {
  return [
    { role: "system" as const, content: `${TRANSLATOR_SYSTEM_PROMPT}\n\nAdditional instructions:\n${additionalInstructions}` },
    { role: "user" as const, content: taskInput },
  ];
}

export const translatorAgent: Agent = {
  name: "VeriBenchTranslatorAgent",
  program: {
    code: [
      "def forward(task_input):",
      '    system = SYSTEM_PROMPT + "\\n\\nAdditional instructions:\\n" + additional_instructions',
      '    reply = llm([{"role": "system", "content": system}, {"role": "user", "content": task_input}])',
      "    return first_lean_block(reply)",
    ].join("\n"),
    documentation: { forward: "Asks the LLM to translate the task's Python code into Lean 4 (a doc comment, the implementation, unit tests and proved theorems), guided by additional_instructions; the reply's first ```lean block is the answer." },
  },
  async run(input, values, context: TaskCallContext) {
    if (context.llm === undefined) throw new Error("the VeriBench translator agent calls an LLM, and the engine gave it none (context.llm is missing)");
    const reply = await context.llm.complete({ role: "agent", messages: translatorMessages(String(values.additional_instructions ?? ""), String(input)), maxTokens: MAX_TOKENS });
    return leanFromReply(reply.content);
  },
};
