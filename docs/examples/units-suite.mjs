// A complete task suite of your own (docs/tasks.md walks through it). Load it with
//   TRACE_BENCH_TASK_MODULES=docs/examples/units-suite.mjs npx trace-bench list-tasks --bench units
// Plain JavaScript, so the built CLI imports it as it is; test/e2e/docs-task-suite.test.ts runs it.

/** Celsius readings and what they are in Fahrenheit: the data the agent is scored on. */
const CELSIUS = [0, 100, -40, 37];
const FAHRENHEIT = [32, 212, -40, 98.6];

/** Scores a number against the reference: 0 is perfect, lower is worse (higher is always better). */
const absoluteError = {
  name: "units.NegativeAbsoluteError",
  evaluate(input, response, info) {
    const error = Math.abs(Number(response) - Number(info));
    if (!Number.isFinite(error)) return { score: -1000, feedback: `${input} °C: the answer ${JSON.stringify(response)} is not a number; expected ${info}` };
    return { score: -error, feedback: `${input} °C: answered ${response}, expected ${info} (off by ${error.toFixed(2)})` };
  },
};

/** Two numbers to learn: F = C × scale + offset (the answer is scale 1.8, offset 32). */
function celsiusToFahrenheit() {
  return {
    taskId: "units:celsius_to_fahrenheit",
    parameters: [
      { name: "scale", kind: "number", value: 1.0, description: "Multiplies the Celsius reading.", trainable: true },
      { name: "offset", kind: "number", value: 0.0, description: "Added after scaling.", trainable: true },
    ],
    agent: {
      name: "LinearConverter",
      // What optimizers are shown as #Code and #Documentation.
      program: { code: "output = input * scale + offset", documentation: { scale: "the slope", offset: "the intercept" } },
      run: (input, values) => Number(input) * Number(values.scale) + Number(values.offset),
    },
    guide: absoluteError,
    train_dataset: { inputs: CELSIUS.slice(0, 3), infos: FAHRENHEIT.slice(0, 3) },
    test_dataset: { inputs: CELSIUS.slice(3), infos: FAHRENHEIT.slice(3) },
    optimizer_kwargs: { objective: "Convert Celsius to Fahrenheit exactly.", memory_size: 5 },
    metadata: { benchmark: "units", entry: "LinearConverter" },
  };
}

/** A text to learn. The stub LLM of mode stub cannot write text: it proposes from `stubAlternatives`. */
function readingLabel(evalKwargs) {
  const unit = String(evalKwargs.unit ?? "°F");
  return {
    taskId: "units:reading_label",
    parameters: [{ name: "label", kind: "text", value: "degrees", description: "The unit written after a reading.", trainable: true }],
    agent: { name: "ReadingFormatter", program: { code: "output = f'{input} {label}'" }, run: (input, values) => `${input} ${values.label}` },
    guide: {
      name: "units.ExactMatch",
      evaluate: (_input, response, info) => (response === info ? { score: 1, feedback: "Correct." } : { score: 0, feedback: `Expected: ${info}` }),
    },
    train_dataset: { inputs: FAHRENHEIT, infos: FAHRENHEIT.map((f) => `${f} ${unit}`) },
    optimizer_kwargs: { objective: "Write readings with their unit.", memory_size: 5 },
    metadata: { benchmark: "units", entry: "ReadingFormatter" },
    stubAlternatives: { label: ["degrees", "F", "°F", "Fahrenheit"] },
  };
}

const TASKS = { celsius_to_fahrenheit: celsiusToFahrenheit, reading_label: readingLabel };

export default {
  name: "units",
  list: () => Object.keys(TASKS).map((name) => `units:${name}`),
  knows: (taskId) => Object.hasOwn(TASKS, taskId.slice("units:".length)),
  // A fresh bundle per job: nothing a job changes may leak into the next.
  load(taskId, evalKwargs) {
    const build = TASKS[taskId.slice("units:".length)];
    if (build === undefined) throw new Error(`unknown task '${taskId}'; run 'trace-bench list-tasks --bench units'`);
    return build(evalKwargs);
  },
};
