/**
 * LLMJudge's prompt and parse rules, worked from OpenTrace's guide.py (each case names its rule),
 * and how a trainer entry's `guide: LLMJudge` replaces the task's guide for training only.
 */
import { describe, expect, it } from "vitest";
import type { GuideResult } from "../../../../src/domain/guide.js";
import type { TaskBundle } from "../../../../src/domain/task-bundle.js";
import type { TaskLlm, TaskLlmRequest } from "../../../../src/domain/task-llm.js";
import {
  createLlmJudge,
  DEFAULT_JUDGE_PROMPT_TEMPLATE,
  DEFAULT_JUDGE_SYSTEM_PROMPT,
  judgeUserPrompt,
  llmJudgeKwargsProblems,
  llmJudgeOptions,
} from "../../../../src/opt/guides/llm-judge.js";
import { parseFormat, pythonFormat } from "../../../../src/opt/guides/python-format.js";
import { withTrainingGuide } from "../../../../src/opt/guides/training-guide.js";

function judgeLlm(reply: string): TaskLlm & { requests: TaskLlmRequest[] } {
  const requests: TaskLlmRequest[] = [];
  return {
    requests,
    complete(request) {
      requests.push(request);
      return Promise.resolve({ content: reply, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, model: "m", stub: false });
    },
  };
}

async function judge(reply: string, kwargs: Record<string, unknown> = {}, input: unknown = "What is 6 x 7?", response: unknown = "42", info: unknown = "42") {
  const llm = judgeLlm(reply);
  const result = (await createLlmJudge(llmJudgeOptions(kwargs)).evaluate(input, response, info, { llm })) as GuideResult;
  return { result, requests: llm.requests };
}

describe("LLMJudge's call", () => {
  it("one call, role judge: the system prompt, then the template filled with query, response, reference and the two verdict phrases; no max_tokens (the original sends none)", async () => {
    const { requests } = await judge("Correct [TERMINATE]");
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.role).toBe("judge");
    expect(request!.maxTokens).toBeUndefined();
    expect(request!.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(request!.messages[0]!.content).toBe(DEFAULT_JUDGE_SYSTEM_PROMPT);
    const prompt = request!.messages[1]!.content;
    expect(prompt).toContain("What is 6 x 7?.\n\n\n");
    expect(prompt).toContain(": 42.\n\n\n");
    expect(prompt).toContain("say Correct [TERMINATE].");
    expect(prompt).toContain("say Incorrect and give the student feedback");
    expect(prompt.indexOf("What is 6 x 7?")).toBeLessThan(prompt.indexOf("say Correct"));
  });

  it("values are written as Python's str() writes them: text as is, numbers and None as Python, structures as JSON", () => {
    const options = llmJudgeOptions({ prompt_template: "{query}|{response}|{reference}" });
    expect(judgeUserPrompt(options, "q", 1.5, 3)).toBe("q|1.5|3");
    expect(judgeUserPrompt(options, true, null, { answer: "12", question: "q" })).toBe('True|None|{"answer": "12", "question": "q"}');
  });

  it("an example without a reference fails, as the original raises", async () => {
    await expect(judge("Correct [TERMINATE]", {}, "q", "a", null)).rejects.toThrow("reference answer");
    await expect(createLlmJudge(llmJudgeOptions({})).evaluate("q", "a", "b", {})).rejects.toThrow("LLMJudge calls an LLM");
  });
});

describe("LLMJudge's verdict", () => {
  it.each([
    ["the exact phrase", "Correct [TERMINATE]", 1],
    ["the phrase inside reasoning", "The student says 42, which matches. Correct [TERMINATE]", 1],
    // The original looks for the phrase anywhere: a reply that quotes it while refusing still scores 1.
    ["the phrase quoted in a refusal (substring rule)", "Incorrect. Do not write Correct [TERMINATE] unless it is.", 1],
    ["Incorrect with feedback", "Incorrect. Multiply before adding.", 0],
    ["'Correct' without [TERMINATE]", "Correct", 0],
    ["another case", "correct [terminate]", 0],
  ])("%s scores %d", async (_label, reply, score) => {
    const { result } = await judge(reply);
    expect(result.score).toBe(score);
    // The feedback is the judge's reply, as is.
    expect(result.feedback).toBe(reply);
  });

  it("use_formatted_response: the feedback restates query, answer and reference, a rule, then the reply", async () => {
    const { result } = await judge("Incorrect. Check the units.", { use_formatted_response: true }, "How far?", "3 km", "3000 m");
    expect(result.score).toBe(0);
    expect(result.feedback).toMatch(/How far\?.*3 km.*3000 m/s);
    expect(result.feedback).toContain("\n-------------------------------------\n");
    expect(result.feedback.endsWith("\nIncorrect. Check the units.")).toBe(true);
  });

  it("a configured correctness_template is what the prompt asks for and what scores 1 (the original ignores it: docs/differences.md)", async () => {
    const { result, requests } = await judge("VERDICT: RIGHT", { correctness_template: "VERDICT: RIGHT" });
    expect(requests[0]!.messages[1]!.content).toContain("say VERDICT: RIGHT.");
    expect(result.score).toBe(1);
    expect((await judge("Correct [TERMINATE]", { correctness_template: "VERDICT: RIGHT" })).result.score).toBe(0);
  });

  it("prompt_template and system_prompt replace the defaults; {{ }} are literal braces", async () => {
    const { requests } = await judge("x", { prompt_template: "Q={query} A={response} R={reference} {{json}}", system_prompt: "Be strict." });
    expect(requests[0]!.messages).toEqual([
      { role: "system", content: "Be strict." },
      { role: "user", content: "Q=What is 6 x 7? A=42 R=42 {json}" },
    ]);
  });
});

describe("LLMJudge's kwargs at validate time", () => {
  it("takes the original's kwargs", () => {
    expect(llmJudgeKwargsProblems({ prompt_template: DEFAULT_JUDGE_PROMPT_TEMPLATE, system_prompt: "s", correctness_template: "OK", use_formatted_response: true })).toEqual([]);
  });

  it("refuses model and llm (the judge's model is llm.guide's), unknown kwargs, wrong types and templates the original would fail on, each in one line", () => {
    const problems = llmJudgeKwargsProblems({ model: "gpt-4o-mini", rubric: "x", use_formatted_response: "yes", prompt_template: "{query} {answer}" });
    expect(Object.fromEntries(problems.map((p) => [p.key, p.text]))).toEqual({
      model: expect.stringContaining("llm.guide.model"),
      rubric: expect.stringContaining("unknown LLMJudge kwarg 'rubric'"),
      use_formatted_response: expect.stringContaining("true or false"),
      prompt_template: expect.stringContaining("{answer}"),
    });
    expect(llmJudgeKwargsProblems({ prompt_template: "{query} }" })[0]!.text).toContain("single '}'");
    expect(llmJudgeKwargsProblems({ prompt_template: "{0}" })[0]!.text).toContain("not a plain name");
  });

  it("python-format reads fields and escapes as str.format does", () => {
    expect(pythonFormat("{a}{{b}}{a}", { a: "1" })).toBe("1{b}1");
    expect("problem" in parseFormat("{unclosed")).toBe(true);
    expect(() => pythonFormat("{c}", { a: "1" })).toThrow("unknown field {c}");
  });
});

describe("the guide training uses", () => {
  const taskGuide = { name: "task.Guide", evaluate: () => ({ score: 0.5, feedback: "task" }) };
  const bundle = { guide: taskGuide, guide_kwargs: { system_prompt: "From the task." } } as unknown as TaskBundle;

  it("is the task's when the trainer entry names no guide", () => {
    expect(withTrainingGuide(bundle, null, {})).toBe(bundle);
  });

  it("is an LLMJudge when the entry names it, with the task's guide_kwargs under the entry's", async () => {
    const trained = withTrainingGuide(bundle, "LLMJudge", { use_formatted_response: false });
    expect(trained.guide.name).toBe("opto.trainer.guide.LLMJudge");
    expect(bundle.guide).toBe(taskGuide);
    const llm = judgeLlm("Correct [TERMINATE]");
    expect(await trained.guide.evaluate("q", "a", "a", { llm })).toEqual({ score: 1, feedback: "Correct [TERMINATE]" });
    expect(llm.requests[0]!.messages[0]!.content).toBe("From the task.");
  });
});
