/**
 * Trace-Bench's internal:multiobjective_gsm8k: a learner agent (OpenTrace's BasicLearner) whose
 * trainable system prompt goes, with the question as the user message, to the agent's LLM
 * (`context.llm`, role "agent": recorded, journaled and budgeted by the engine). Three minimized
 * metrics: `error` (0 when the reply's final answer is right, else 1), `tokens_in` and
 * `tokens_out` (the prompt and completion tokens of that example's agent call, from its usage),
 * weighted 1, 1e-3, 1e-3. The score is −error. Training set: the original's ten embedded GSM8K
 * problems (gsm8k-examples.ts), shuffled with numpy's RandomState(seed), the first `n_train`.
 * `eval_kwargs`: `objective_mode` (weighted | pareto), `seed` (42), `n_train` (10).
 */
import type { Kwargs } from "../../../src/config/kwargs.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import type { Guide } from "../../../src/domain/guide.js";
import type { TaskLlm } from "../../../src/domain/task-llm.js";
import { defineTraceModel } from "../../../src/opt/trace/model.js";
import { NumpyRandomState } from "../../../src/opt/objectives/numpy-random-state.js";
import { GSM8K_EMBEDDED_EXAMPLES, type Gsm8kExample } from "./gsm8k-examples.js";
import { extractFinalAnswer, gsm8kError, shownAnswer } from "./gsm8k-answer.js";
import { countOf, objectiveModeOf } from "./task-kwargs.js";

export const GSM8K_SYSTEM_PROMPT = "You are a math problem solver. Solve the problem step by step. End your answer with #### followed by the final numeric answer.";
const USER_PROMPT_TEMPLATE = "{message}";

/** BasicLearner's `model` bundle, shown to the optimizer as the operation the prompt feeds. */
const MODEL_OP = {
  name: "model",
  documentation:
    "Call the LLM model. system_prompt: the system prompt to the agent; by tuning this prompt we can control the behavior of the agent (how to reason about the problem, how to answer the question) or give in-context examples. user_prompt_template: formats the input as user_prompt_template.format(message=message). message: the input to the agent. Returns the response from the agent.",
};

export interface TokenUsage {
  readonly tokens_in: number;
  readonly tokens_out: number;
}

/**
 * The usage of the last agent call made through each example's LLM. The engine gives every
 * example (its agent run and its guide call) an LLM of its own, so this is the original's
 * per-context "last usage" without a shared variable that concurrent examples would overwrite.
 */
export class AgentUsage {
  private readonly last = new WeakMap<TaskLlm, TokenUsage>();

  record(llm: TaskLlm, usage: TokenUsage): void {
    this.last.set(llm, usage);
  }

  /** Zero when the example's agent made no call (as the original reports then). */
  of(llm: TaskLlm | undefined): TokenUsage {
    return (llm && this.last.get(llm)) ?? { tokens_in: 0, tokens_out: 0 };
  }
}

/** The first `n` of the examples in the order numpy's RandomState(seed).shuffle puts their indices. */
export function gsm8kTrainExamples(n: number, seed: number): Gsm8kExample[] {
  const order = GSM8K_EMBEDDED_EXAMPLES.map((_, i) => i);
  new NumpyRandomState(seed).shuffle(order);
  return order.slice(0, n).map((i) => GSM8K_EMBEDDED_EXAMPLES[i]!);
}

/** GSM8KGuide wrapped with the agent call's token counts, as the original's TokenUsageAugmentingGuide. */
export function gsm8kTokenGuide(usage: AgentUsage): Guide {
  return {
    name: "trace_bench.examples.multiobjective_gsm8k.TokenUsageAugmentingGuide",
    evaluate(_input, response, info, context) {
      const reply = String(response);
      const reference = String(info);
      const error = gsm8kError(reply, reference);
      const tokens = usage.of(context.llm);
      const feedback = `expected=${shownAnswer(extractFinalAnswer(reference))} predicted=${shownAnswer(extractFinalAnswer(reply))} tokens_in=${tokens.tokens_in} tokens_out=${tokens.tokens_out}`;
      return { score: -error, feedback, scores: { error, tokens_in: tokens.tokens_in, tokens_out: tokens.tokens_out } };
    },
  };
}

export function multiobjectiveGsm8kTask(evalKwargs: Kwargs): TaskBundle {
  const mode = objectiveModeOf(evalKwargs);
  const seed = countOf(evalKwargs, "seed", 42);
  const nTrain = countOf(evalKwargs, "n_train", 10);
  if (evalKwargs["model"] !== undefined && evalKwargs["model"] !== null) {
    throw new Error("eval_kwargs.model is not read here: the agent's model is the run's llm (set llm.agent in the config)");
  }
  const examples = gsm8kTrainExamples(nTrain, seed);
  const usage = new AgentUsage();
  const model = defineTraceModel({
    name: "BasicLearner",
    parameters: [
      { name: "system_prompt", kind: "text", value: GSM8K_SYSTEM_PROMPT, description: "The system prompt of the math-solving agent." },
      { name: "user_prompt_template", kind: "text", value: USER_PROMPT_TEMPLATE, description: "How the question is put to the agent ({message} is the question).", trainable: false },
    ],
    forward: (self, input) =>
      self.op(MODEL_OP, { system_prompt: self.param("system_prompt"), user_prompt_template: self.param("user_prompt_template"), message: input }, async (values) => {
        const llm = self.context.llm;
        // Never a client of our own: every call must be recorded, journaled and budgeted by the engine.
        if (llm === undefined) throw new Error("internal:multiobjective_gsm8k calls an LLM, and the engine gave it none (context.llm is missing)");
        const template = String(values.user_prompt_template);
        if (!template.includes("{message}")) throw new Error("user_prompt_template must contain '{message}'");
        const reply = await llm.complete({
          role: "agent",
          messages: [
            { role: "system", content: String(values.system_prompt) },
            { role: "user", content: template.replaceAll("{message}", String(values.message)) },
          ],
        });
        usage.record(llm, { tokens_in: reply.usage.prompt_tokens, tokens_out: reply.usage.completion_tokens });
        return reply.content;
      }),
  });
  return {
    taskId: "internal:multiobjective_gsm8k",
    parameters: model.parameters,
    agent: model.agent,
    guide: gsm8kTokenGuide(usage),
    train_dataset: { inputs: examples.map((e) => e.question), infos: examples.map((e) => e.answer) },
    optimizer_kwargs: { objective: "Improve the system prompt to solve math word problems accurately and concisely. End with #### <number>.", memory_size: 10 },
    // Prompts the stub LLM may propose: a longer one costs more prompt tokens, which the objective weighs.
    stubAlternatives: {
      system_prompt: [
        GSM8K_SYSTEM_PROMPT,
        "Solve the math problem. End with #### and the number.",
        "You are a careful math tutor. Think through the problem step by step, check each calculation twice, explain your reasoning in full sentences, and end your answer with #### followed by the final numeric answer.",
      ],
    },
    metadata: {
      benchmark: "multiobjective",
      entry: "gsm8k",
      objective_mode: mode,
      n_train: nTrain,
      objective_config: { mode, weights: { error: 1.0, tokens_in: 1e-3, tokens_out: 1e-3 }, minimize: ["error", "tokens_in", "tokens_out"], seed, tie_break: "weighted" },
    },
  };
}
