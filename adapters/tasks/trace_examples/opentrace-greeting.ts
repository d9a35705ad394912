/**
 * Trace-Bench's trace_examples:opentrace_greeting (OpenTrace's examples/greeting.py): a Trace
 * model with two trainable instructions and three trainable functions, decide_lang, extract_name
 * and greet, whose JavaScript sources run in the JavaScript sandbox. "Hola, soy Juan." must get a
 * Spanish greeting, "Hello, I am Sam." an English one; the guide checks the greeting word only.
 * Initial score 1.0.
 */
import type { Guide } from "../../../src/domain/guide.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { defineTraceModel } from "../../../src/opt/trace/model.js";
import type { JsSandbox } from "../../sandbox/js-sandbox.js";
import { sandboxRunner } from "../internal/sandbox-runner.js";

export const DECIDE_LANG = `function decide_lang(_instruction, user_query) {
  const text = String(user_query).toLowerCase();
  return ["hola", "soy", "juan"].some((token) => text.includes(token)) ? "es" : "en";
}`;

export const EXTRACT_NAME = `function extract_name(_instruction, user_query) {
  const text = String(user_query).trim().replace(/^[.!?]+|[.!?]+$/g, "");
  const lowered = text.toLowerCase();
  if (lowered.includes("soy ")) return text.slice(lowered.lastIndexOf("soy ") + 4).trim();
  if (lowered.includes("i am ")) return text.slice(lowered.lastIndexOf("i am ") + 5).trim();
  return text ? text.trim().split(/\\s+/).pop() : "Friend";
}`;

export const GREET = `function greet(lang, user_name) {
  const greeting = String(lang).toLowerCase() === "es" ? "Hola" : "Hello";
  return greeting + ", " + user_name + "!";
}`;

/** Scores 1 when the response holds the greeting word of the expected language ("es": Hola, else Hello). */
export const greetingFeedbackGuide: Guide = {
  name: "trace_bench.examples.opentrace_greeting.GreetingFeedbackGuide",
  evaluate(_input, response, info) {
    const expected = info === "es" ? "Hola" : "Hello";
    const score = String(response).includes(expected) ? 1 : 0;
    return { score, feedback: score === 1 ? "Correct" : `Expected language=${String(info)}` };
  },
};

/** Sources the stub LLM may propose for greet (it cannot write code of its own): one always answers in English. */
const GREET_ENGLISH_ONLY = `function greet(lang, user_name) {
  return "Hello, " + user_name + "!";
}`;

export function opentraceGreetingTask(js: JsSandbox): TaskBundle {
  const model = defineTraceModel({
    name: "OpenTraceGreetingAgent",
    parameters: [
      { name: "instruct1", kind: "text", value: "Decide the language", description: "[ParameterNode] The instruction given to decide_lang." },
      { name: "instruct2", kind: "text", value: "Extract name if present", description: "[ParameterNode] The instruction given to extract_name." },
    ],
    trainableOps: [
      { name: "decide_lang", source: DECIDE_LANG, run: sandboxRunner(js, DECIDE_LANG) },
      { name: "extract_name", source: EXTRACT_NAME, run: sandboxRunner(js, EXTRACT_NAME) },
      { name: "greet", source: GREET, run: sandboxRunner(js, GREET) },
    ],
    async forward(self, input) {
      const lang = await self.call("decide_lang", { _instruction: self.param("instruct1"), user_query: input });
      const userName = await self.call("extract_name", { _instruction: self.param("instruct2"), user_query: input });
      return self.call("greet", { lang, user_name: userName });
    },
  });
  return {
    taskId: "trace_examples:opentrace_greeting",
    parameters: model.parameters,
    agent: model.agent,
    guide: greetingFeedbackGuide,
    train_dataset: { inputs: ["Hola, soy Juan.", "Hello, I am Sam."], infos: ["es", "en"] },
    optimizer_kwargs: { objective: "Produce a correctly localized greeting from the user query.", memory_size: 5 },
    stubAlternatives: { __code_greet: [GREET, GREET_ENGLISH_ONLY] },
    metadata: { benchmark: "trace_examples", entry: "OpenTraceGreetingAgent", source_example: "OpenTrace/examples/greeting.py" },
  };
}
