/**
 * The BBEH-style agent (agent_class "bbeh": BBEH, GSM8K, the multiple-choice sets, StrategyQA):
 * the trainable `prompt_template` is the system message, the question the user message, and the
 * answer is what follows the reply's last "Answer:", trimmed (the original's `extract_answer`).
 * The original lets the optimizer rewrite `extract_answer` as Python too; that parameter is not
 * offered here yet (see docs/differences.md).
 */
import type { Agent } from "../../../src/domain/agent.js";
import type { ParameterSpec } from "../../../src/domain/parameter.js";
import { askAgentLlm } from "./agent-llm.js";
import { pyStrip } from "./hf-text.js";

export const BBEH_PROMPT_TEMPLATE = "Given the fields `question`, produce the fields `answer`.\n\n---\n\nFollow the following format.\n\nQuestion:\nAnswer:\n\n---\nQuestion:\n";

const BBEH_PROMPT_DESCRIPTION =
  "[ParameterNode] This is the Prompt Template to the LLM. " +
  "Need to include information about what the format of answers LLM should output. " +
  "They can be (A)/(B), a number like 8, or a string, or Yes/No/Ambiguous.";

export function bbehParameters(): ParameterSpec[] {
  return [{ name: "prompt_template", kind: "text", value: BBEH_PROMPT_TEMPLATE, description: BBEH_PROMPT_DESCRIPTION, trainable: true }];
}

/** What follows the last "Answer:" (the whole reply when there is none), trimmed. */
export function extractAnswer(reply: string): string {
  const pieces = reply.split("Answer:");
  return pyStrip(pieces[pieces.length - 1]!);
}

export const bbehAgent: Agent = {
  name: "TraceBBEHAgent",
  program: {
    code: [
      "def forward(question):",
      '    response = llm([{"role": "system", "content": prompt_template}, {"role": "user", "content": question}])',
      "    return extract_answer(prompt_template, question, response)",
      "",
      "def extract_answer(prompt_template, question, response):",
      '    return str(response).split("Answer:")[-1].strip()',
    ].join("\n"),
    documentation: { forward: "Asks the LLM with prompt_template as the system message and the question as the user message, then extracts the answer after the last 'Answer:'." },
  },
  async run(input, values, context) {
    const reply = await askAgentLlm(context, [
      { role: "system", content: String(values.prompt_template ?? "") },
      { role: "user", content: String(input) },
    ]);
    return extractAnswer(reply);
  },
};
