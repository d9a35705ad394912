/**
 * LLMJudge (OpenTrace `opto.trainer.guide.LLMJudge`, algorithms reference §1.5): a guide that asks
 * an LLM whether the response matches the reference answer. One call per example, audited with
 * role `judge` (its model and endpoint are `llm.guide`'s); score 1 when the reply contains the
 * correctness phrase (`Correct [TERMINATE]` by default), else 0; the feedback is the reply, or
 * with use_formatted_response a block that restates query, answer and reference before it.
 *
 * Its prompt is a Python format template with the fields {query}, {response}, {reference},
 * {correctness_template} and {incorrectness_template}; values are written as Python's str()
 * writes them (a structured value as JSON). Where the original ignores its correctness_template
 * (always asking for and looking for `Correct [TERMINATE]`), the configured phrase is used in both
 * places here (docs/differences.md).
 */
import { pythonStr } from "../../codec/python-json.js";
import type { Kwargs } from "../../config/kwargs.js";
import type { Guide, GuideResult } from "../../domain/guide.js";
import type { TaskCallContext } from "../../domain/task-call-context.js";
import { parseFormat, pythonFormat } from "./python-format.js";

export const LLM_JUDGE_NAME = "LLMJudge";

export const DEFAULT_CORRECTNESS_TEMPLATE = "Correct [TERMINATE]";
export const DEFAULT_INCORRECTNESS_TEMPLATE = "Incorrect";

export const DEFAULT_JUDGE_PROMPT_TEMPLATE =
  "The question is: {query}.\n\n\nThe student's answer is: {response}.\n\n\nThe correct answer is: {reference}.\n\n\n" +
  "Work out whether the student's answer is correct. If it is correct, say {correctness_template}. " +
  "If it is not, say {incorrectness_template} and give the student feedback. " +
  "Make the feedback specific and actionable.";

export const DEFAULT_JUDGE_SYSTEM_PROMPT = "You are a helpful teacher who gives clear, constructive feedback.";

const TEMPLATE_FIELDS = ["query", "response", "reference", "correctness_template", "incorrectness_template"] as const;

export interface LlmJudgeOptions {
  readonly promptTemplate: string;
  readonly systemPrompt: string;
  readonly correctnessTemplate: string;
  readonly useFormattedResponse: boolean;
}

const TEXT_KWARGS = { prompt_template: "promptTemplate", system_prompt: "systemPrompt", correctness_template: "correctnessTemplate" } as const;

const REFUSED: Readonly<Record<string, string>> = {
  model: "LLMJudge's model is set with llm.guide.model (and its endpoint with llm.guide.base_url), not in guide_kwargs; move it there",
  llm: "LLMJudge's llm is a Python LLM object, which a config cannot hold; set the judge's model with llm.guide.model",
};

/** One problem per guide kwarg LLMJudge cannot take: its key (inside guide_kwargs) and one line with the fix. */
export function llmJudgeKwargsProblems(kwargs: Kwargs): { readonly key: string; readonly text: string }[] {
  const problems: { key: string; text: string }[] = [];
  const known = [...Object.keys(TEXT_KWARGS), "use_formatted_response"];
  for (const [key, value] of Object.entries(kwargs)) {
    if (value === null || value === undefined) continue;
    if (Object.hasOwn(REFUSED, key)) problems.push({ key, text: REFUSED[key]! });
    else if (key === "use_formatted_response") {
      if (typeof value !== "boolean") problems.push({ key, text: `LLMJudge's use_formatted_response must be true or false, got ${JSON.stringify(value)}` });
    } else if (Object.hasOwn(TEXT_KWARGS, key)) {
      if (typeof value !== "string" || value === "") problems.push({ key, text: `LLMJudge's ${key} must be a non-empty text, got ${JSON.stringify(value)}` });
      else if (key === "prompt_template") {
        const parsed = parseFormat(value);
        if ("problem" in parsed) problems.push({ key, text: `LLMJudge's prompt_template has ${parsed.problem}` });
        else {
          const unknown = parsed.parts.flatMap((p) => ("field" in p && !(TEMPLATE_FIELDS as readonly string[]).includes(p.field) ? [p.field] : []));
          if (unknown.length > 0) problems.push({ key, text: `LLMJudge's prompt_template names {${unknown[0]}}, which it does not fill; use ${TEMPLATE_FIELDS.map((f) => `{${f}}`).join(", ")}` });
        }
      }
    } else problems.push({ key, text: `unknown LLMJudge kwarg '${key}' (known: ${known.join(", ")}, and model/llm through llm.guide)` });
  }
  return problems;
}

/** The options of valid kwargs (validate refuses the others; what is left here takes the defaults). */
export function llmJudgeOptions(kwargs: Kwargs): LlmJudgeOptions {
  const text = (key: keyof typeof TEXT_KWARGS, fallback: string) => (typeof kwargs[key] === "string" && kwargs[key] !== "" ? (kwargs[key] as string) : fallback);
  return {
    promptTemplate: text("prompt_template", DEFAULT_JUDGE_PROMPT_TEMPLATE),
    systemPrompt: text("system_prompt", DEFAULT_JUDGE_SYSTEM_PROMPT),
    correctnessTemplate: text("correctness_template", DEFAULT_CORRECTNESS_TEMPLATE),
    useFormattedResponse: kwargs.use_formatted_response === true,
  };
}

/** The judge's user prompt for one example. */
export function judgeUserPrompt(options: LlmJudgeOptions, query: unknown, response: unknown, reference: unknown): string {
  return pythonFormat(options.promptTemplate, {
    query: pythonStr(query),
    response: pythonStr(response),
    reference: pythonStr(reference),
    correctness_template: options.correctnessTemplate,
    incorrectness_template: DEFAULT_INCORRECTNESS_TEMPLATE,
  });
}

/** Score and feedback from the judge's reply. */
export function judgeVerdict(options: LlmJudgeOptions, reply: string, query: unknown, response: unknown, reference: unknown): GuideResult {
  const score = reply.includes(options.correctnessTemplate) ? 1 : 0;
  if (!options.useFormattedResponse) return { score, feedback: reply };
  const restated = `The question is: ${pythonStr(query)}. The student's answer is: ${pythonStr(response)}. The correct answer is: ${pythonStr(reference)}. `;
  return { score, feedback: `${restated}\n-------------------------------------\nExpert feedback for the next attempt (when there is any, attend to it most):\n${reply}` };
}

export function createLlmJudge(options: LlmJudgeOptions): Guide {
  return {
    name: `opto.trainer.guide.${LLM_JUDGE_NAME}`,
    async evaluate(input: unknown, response: unknown, info: unknown, context: TaskCallContext): Promise<GuideResult> {
      if (info === null || info === undefined) throw new Error("LLMJudge needs the example's reference answer (its info) to judge against, and this example has none");
      if (context.llm === undefined) throw new Error("LLMJudge calls an LLM, and this evaluation was given none");
      const reply = await context.llm.complete({
        role: "judge",
        messages: [
          { role: "system", content: options.systemPrompt },
          { role: "user", content: judgeUserPrompt(options, input, response, info) },
        ],
      });
      return judgeVerdict(options, reply.content, input, response, info);
    },
  };
}
