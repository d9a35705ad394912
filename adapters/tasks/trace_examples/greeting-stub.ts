import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { exactMatch } from "../guides.js";
import type { JsSandbox } from "../../sandbox/js-sandbox.js";

const COMPOSE = `(greeting, query) => {
  const words = String(query).trim().split(/\\s+/);
  const name = words[words.length - 1].replace(/[!.?]+$/, "");
  return greeting + ", " + name + "!";
}`;

/** Greeting words the stub LLM may propose (it cannot write text of its own). */
export const greetingStubAlternatives = { greeting: ["Hello", "Hi", "Hey"] };

/**
 * A greeting word and a trainable compose function: "Hello I am Sam" → "Hello, Sam!". Initial
 * score 1.0. The function runs in the JavaScript sandbox.
 */
export function greetingStubTask(js: JsSandbox): TaskBundle {
  return {
    taskId: "trace_examples:greeting_stub",
    parameters: [
      { name: "greeting", kind: "text", value: "Hello", description: "The greeting word.", trainable: true },
      {
        name: "compose",
        kind: "code",
        value: COMPOSE,
        description: "A JavaScript arrow function (greeting, query) => string that greets the person named last in the query.",
        trainable: true,
      },
    ],
    agent: {
      name: "GreetingAgent",
      program: { code: "output = compose(greeting, input)", documentation: { compose: "Builds the greeting for the query (the trainable compose function)." } },
      run: (input, values, context) => js.run(String(values.compose), [values.greeting, input], context.signal ? { signal: context.signal } : {}),
    },
    guide: exactMatch,
    train_dataset: { inputs: ["Hello I am Sam"], infos: ["Hello, Sam!"] },
    optimizer_kwargs: { objective: "Greet the user by name in the expected format.", memory_size: 5 },
    metadata: { benchmark: "trace_examples", entry: "GreetingAgent" },
  };
}
