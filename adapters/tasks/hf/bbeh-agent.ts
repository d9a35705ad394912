/**
 * The BBEH-style agent (agent_class "bbeh": BBEH, GSM8K, the multiple-choice sets, StrategyQA):
 * the trainable `prompt_template` is the system message and the question the user message; the
 * trainable Python `extract_answer` (parameter `__code`) turns the reply into the answer, run in
 * the python worker pool, never in the engine.
 */
import type { Agent } from "../../../src/domain/agent.js";
import type { ParameterSpec } from "../../../src/domain/parameter.js";
import { askAgentLlm } from "./agent-llm.js";
import type { CodeRunner } from "./code-runner.js";

export const BBEH_PROMPT_TEMPLATE = "Given the fields `question`, produce the fields `answer`.\n\n---\n\nFollow the following format.\n\nQuestion:\nAnswer:\n\n---\nQuestion:\n";

const BBEH_PROMPT_DESCRIPTION =
  "[ParameterNode] This is the Prompt Template to the LLM. " +
  "Need to include information about what the format of answers LLM should output. " +
  "They can be (A)/(B), a number like 8, or a string, or Yes/No/Ambiguous.";

/** The initial extract_answer: what follows the reply's last "Answer:", trimmed. */
export const EXTRACT_ANSWER_CODE = `def extract_answer(self, prompt_template, question, response):
    """Parse the LLM response and return the final answer.

    Need to read in the response, which can contain additional thought,
    deliberation, and an answer. Process the response and find where
    the answer is.

    Args:
        prompt_template: The prompt used to query the LLM.
        question: The question text including any "Options" section.
        response: Raw LLM response string. Extract the answer in the
                  exact format the evaluator expects: (A)/(B), a number,
                  a string, or Yes/No.
    """
    answer = str(response).split("Answer:")[-1].strip()
    return answer
`;

const EXTRACT_ANSWER_DESCRIPTION =
  "[extract_answer] Python code: def extract_answer(self, prompt_template, question, response) -> str returns the final answer parsed from the LLM response. " +
  "Keep the name and signature; it runs in a sandbox without network access or an LLM.";

export function bbehParameters(): ParameterSpec[] {
  return [
    { name: "prompt_template", kind: "text", value: BBEH_PROMPT_TEMPLATE, description: BBEH_PROMPT_DESCRIPTION, trainable: true },
    { name: "__code", kind: "code", value: EXTRACT_ANSWER_CODE, description: EXTRACT_ANSWER_DESCRIPTION, trainable: true },
  ];
}

export function bbehAgent(runner: CodeRunner): Agent {
  return {
    name: "TraceBBEHAgent",
    program: {
      code: [
        "def forward(question):",
        '    response = llm([{"role": "system", "content": prompt_template}, {"role": "user", "content": question}])',
        "    return extract_answer(None, prompt_template, question, response)",
      ].join("\n"),
      documentation: { forward: "Asks the LLM with prompt_template as the system message and the question as the user message, then parses the reply with the trainable extract_answer (__code)." },
    },
    async run(input, values, context) {
      const promptTemplate = String(values.prompt_template ?? "");
      const question = String(input);
      const reply = await askAgentLlm(context, [
        { role: "system", content: promptTemplate },
        { role: "user", content: question },
      ]);
      const extracted = await runner.extractAnswer({ code: String(values.__code ?? EXTRACT_ANSWER_CODE), promptTemplate, question, response: reply }, context.signal);
      if ("error" in extracted) throw new Error(`extract_answer failed: ${extracted.error}`);
      return extracted.answer;
    },
  };
}
