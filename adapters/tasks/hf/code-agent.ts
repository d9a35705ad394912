/**
 * The code agent (agent_class "code": HumanEval, MBPP): the trainable `prompt_template` is the
 * system message, the problem the user message, and the reply goes to the guide unchanged (the
 * code is the answer; the guide unwraps a fence and runs the tests).
 */
import type { Agent } from "../../../src/domain/agent.js";
import type { ParameterSpec } from "../../../src/domain/parameter.js";
import { askAgentLlm } from "./agent-llm.js";

export const CODE_PROMPT =
  "You are an expert Python programmer. Implement the requested function.\n" +
  "Return ONLY the complete function definition (you may use a ```python block).\n" +
  "Do not include explanations, examples, or test code.\n\n";

const CODE_PROMPT_DESCRIPTION =
  "[ParameterNode] Code-generation instructions prepended to each problem " +
  "spec. Should steer the model to emit a single complete, correct Python " +
  "function definition (no prose, no tests) that satisfies the spec and its " +
  "hidden unit tests.";

export function codeParameters(): ParameterSpec[] {
  return [{ name: "prompt_template", kind: "text", value: CODE_PROMPT, description: CODE_PROMPT_DESCRIPTION, trainable: true }];
}

export const codeAgent: Agent = {
  name: "TraceCodeAgent",
  program: {
    code: ["def forward(question):", '    return llm([{"role": "system", "content": prompt_template}, {"role": "user", "content": question}])'].join("\n"),
    documentation: { forward: "Asks the LLM for a Python function, with prompt_template as the system message and the problem as the user message; the reply is the candidate code." },
  },
  async run(input, values, context) {
    return askAgentLlm(context, [
      { role: "system", content: String(values.prompt_template ?? "") },
      { role: "user", content: String(input) },
    ]);
  },
};
