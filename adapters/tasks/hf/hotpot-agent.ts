/**
 * The HotpotQA-style agent (agent_class "hfqa": HotpotQA, MuSiQue, DROP, Qasper): one trainable
 * text, `meta_instructions`, put before the example's context and question in a single user message.
 */
import type { Agent } from "../../../src/domain/agent.js";
import type { ParameterSpec } from "../../../src/domain/parameter.js";
import { askAgentLlm } from "./agent-llm.js";
import type { HfExample } from "./hf-example.js";

export const DEFAULT_INSTRUCTIONS = "Answer the question based on the context.";
const DEFAULT_DESCRIPTION = "Meta-instructions guiding the agent's reasoning and answer format.";

export function hotpotPrompt(instructions: string, example: Pick<HfExample, "context" | "question">): string {
  return `${instructions}\n\nContext:\n${example.context}\n\nQuestion: ${example.question}\n\nAnswer:`;
}

export function hotpotParameters(initialInstructions: string, description: string | undefined): ParameterSpec[] {
  return [{ name: "meta_instructions", kind: "text", value: initialInstructions, description: description ?? DEFAULT_DESCRIPTION, trainable: true }];
}

export const hotpotAgent: Agent = {
  name: "TraceHotpotQAAgent",
  program: {
    code: [
      "def forward(task):",
      '    prompt = f"{meta_instructions}\\n\\nContext:\\n{task.context}\\n\\nQuestion: {task.question}\\n\\nAnswer:"',
      '    return llm([{"role": "user", "content": prompt}])',
    ].join("\n"),
    documentation: { forward: "Answers one question from its context paragraphs with a single LLM call guided by meta_instructions." },
  },
  async run(input, values, context) {
    const example = input as HfExample;
    return askAgentLlm(context, [{ role: "user", content: hotpotPrompt(String(values.meta_instructions ?? ""), example) }]);
  },
};
