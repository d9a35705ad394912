/**
 * internal:multiobjective_gsm8k (issue 34): GSM8K's answer rule, the original's example order,
 * the learner agent asking through context.llm, and token counts taken from each example's own
 * agent call, also when examples run concurrently.
 */
import { describe, expect, it } from "vitest";
import { extractFinalAnswer, gsm8kError, normalizeAnswer } from "../../../adapters/tasks/internal/gsm8k-answer.js";
import { GSM8K_EMBEDDED_EXAMPLES } from "../../../adapters/tasks/internal/gsm8k-examples.js";
import { GSM8K_SYSTEM_PROMPT, gsm8kTrainExamples, multiobjectiveGsm8kTask } from "../../../adapters/tasks/internal/multiobjective-gsm8k.js";
import { initialValues } from "../../../src/domain/parameter.js";
import type { TaskLlm, TaskLlmRequest } from "../../../src/domain/task-llm.js";
import { examplesOf, rolloutMany } from "../../../src/opt/rollout.js";
import { objectiveConfigFromKwarg } from "../../../src/opt/objectives/objective-config-kwarg.js";
import { scoreDataset } from "../../../src/tasks/score-dataset.js";

/** An LLM whose reply and usage depend on the question; it answers after `delayMs(question)`. */
function answeringLlm(reply: (question: string) => { content: string; prompt: number; completion: number }, delayMs: (question: string) => number = () => 0): TaskLlm & { requests: TaskLlmRequest[] } {
  const requests: TaskLlmRequest[] = [];
  return {
    requests,
    async complete(request) {
      requests.push(request);
      const question = request.messages[request.messages.length - 1]!.content;
      await new Promise((done) => setTimeout(done, delayMs(question)));
      const { content, prompt, completion } = reply(question);
      return { content, usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion }, model: "scripted", stub: false };
    },
  };
}

describe("GSM8K's answer rule", () => {
  it("takes the number after ####, else the last number, without thousands separators", () => {
    expect(extractFinalAnswer("so 2 + 3 = 5\n#### 1,234 apples")).toBe("1234");
    expect(extractFinalAnswer("first 4, then 7, so 12.5")).toBe("12.5");
    expect(extractFinalAnswer("#### none\nbut 9")).toBe("9");
    expect(extractFinalAnswer("no digits")).toBeNull();
    expect(extractFinalAnswer(null)).toBeNull();
  });

  it("compares 18.0 with 18 and 007 with 7, but not 18.5 with 18", () => {
    expect(normalizeAnswer("18.0")).toBe("18");
    expect(normalizeAnswer("007")).toBe("7");
    expect(normalizeAnswer("-0")).toBe("0");
    expect(normalizeAnswer("3/4")).toBe("3/4");
    expect(gsm8kError("The total is 18.0", "#### 18")).toBe(0);
    expect(gsm8kError("#### 18.5", "#### 18")).toBe(1);
    expect(gsm8kError("I cannot tell", "#### 18")).toBe(1);
  });
});

describe("internal:multiobjective_gsm8k", () => {
  it("trains on the embedded examples in the order numpy's RandomState(42).shuffle gives", () => {
    // np.random.RandomState(42).shuffle(list(range(10))) → [8, 1, 5, 0, 7, 2, 9, 4, 3, 6]
    const expected = [8, 1, 5, 0, 7, 2, 9, 4, 3, 6].map((i) => GSM8K_EMBEDDED_EXAMPLES[i]!.question);
    expect(gsm8kTrainExamples(10, 42).map((e) => e.question)).toEqual(expected);
    expect(gsm8kTrainExamples(3, 42).map((e) => e.question)).toEqual(expected.slice(0, 3));
    const bundle = multiobjectiveGsm8kTask({ n_train: 4 });
    expect(bundle.train_dataset.inputs).toEqual(expected.slice(0, 4));
    expect(bundle.train_dataset.infos[0]).toMatch(/#### 76$/);
  });

  it("has one trainable parameter, the system prompt, and the objective of its eval_kwargs", () => {
    for (const mode of ["weighted", "pareto"] as const) {
      const bundle = multiobjectiveGsm8kTask({ objective_mode: mode });
      expect(bundle.parameters.filter((p) => p.trainable).map((p) => [p.name, p.value])).toEqual([["system_prompt", GSM8K_SYSTEM_PROMPT]]);
      const objective = objectiveConfigFromKwarg(bundle.metadata["objective_config"])!;
      expect(objective.mode).toBe(mode);
      expect(objective.weights).toEqual({ error: 1.0, tokens_in: 1e-3, tokens_out: 1e-3 });
      expect([...objective.minimize].sort()).toEqual(["error", "tokens_in", "tokens_out"]);
    }
    expect(() => multiobjectiveGsm8kTask({ objective_mode: "lexicographic" })).toThrow(/^eval_kwargs\.objective_mode must be weighted or pareto, got "lexicographic"$/);
    expect(() => multiobjectiveGsm8kTask({ n_train: -1 })).toThrow(/eval_kwargs\.n_train must be a non-negative integer/);
    expect(() => multiobjectiveGsm8kTask({ model: "gpt-4o" })).toThrow(/llm\.agent/);
  });

  it("asks the agent's LLM with the system prompt and the question, and scores error, tokens_in and tokens_out of that call", async () => {
    const bundle = multiobjectiveGsm8kTask({ n_train: 2 });
    const [first, second] = bundle.train_dataset.inputs as string[];
    const llm = answeringLlm((q) => (q === first ? { content: "Tom has 12, Lisa 60.\n#### 76", prompt: 120, completion: 30 } : { content: "#### 1", prompt: 90, completion: 5 }));
    const rollouts = await rolloutMany(bundle.agent, bundle.guide, initialValues(bundle.parameters), examplesOf(bundle.train_dataset), { signal: new AbortController().signal, llm });
    expect(llm.requests.map((r) => [r.role, r.messages])).toEqual([
      ["agent", [{ role: "system", content: GSM8K_SYSTEM_PROMPT }, { role: "user", content: first }]],
      ["agent", [{ role: "system", content: GSM8K_SYSTEM_PROMPT }, { role: "user", content: second }]],
    ]);
    expect(rollouts.map((r) => [r.score, r.scores, r.feedback])).toEqual([
      [-0, { error: 0, tokens_in: 120, tokens_out: 30 }, "expected=76 predicted=76 tokens_in=120 tokens_out=30"],
      [-1, { error: 1, tokens_in: 90, tokens_out: 5 }, "expected=10 predicted=1 tokens_in=90 tokens_out=5"],
    ]);
  });

  it("each example's token counts are its own call's when examples run at once and finish out of order", async () => {
    const bundle = multiobjectiveGsm8kTask({ n_train: 6 });
    const questions = bundle.train_dataset.inputs as string[];
    const index = (q: string) => questions.indexOf(q);
    // One LLM per example, as the engine gives them; later examples answer first.
    const llmFor = () => answeringLlm((q) => ({ content: "#### 0", prompt: 100 + index(q), completion: 10 + index(q) }), (q) => (questions.length - index(q)) * 5);
    const rollouts = await rolloutMany(bundle.agent, bundle.guide, initialValues(bundle.parameters), examplesOf(bundle.train_dataset), { signal: new AbortController().signal, concurrency: 6, llmFor });
    expect(rollouts.map((r) => [r.scores!.tokens_in, r.scores!.tokens_out])).toEqual(questions.map((_, i) => [100 + i, 10 + i]));
  });

  it("without an LLM from the engine the agent fails and says why (it never makes a client of its own)", async () => {
    const bundle = multiobjectiveGsm8kTask({ n_train: 1 });
    const result = await scoreDataset(bundle, initialValues(bundle.parameters), { name: "train_dataset", dataset: bundle.train_dataset });
    expect(result.score).toBeNull();
    expect(result.feedback).toMatch(/agent_error\[0\]: .*the engine gave it none/);
  });
});
