/**
 * Trace-Bench's internal:multiobjective_bbeh, program-aided (PAL): the trainable parameter is
 * Python code that sets `result` from `question`; the agent hands the code on (the original's
 * parameter is the code node itself) and the guide runs it on the example's question in the
 * python3 worker pool (pal-runner.ts). Two metrics: `accuracy` (1 when `result` matches the
 * target, ignoring case, punctuation and spaces; maximized) and `execution_time_s` (the exec's
 * CPU seconds, rounded to hundredths so reruns repeat; minimized), weighted 1.0 / 0.3.
 * Data: a BBEH clone's `bbeh/benchmark_tasks/bbeh_boolean_expressions/task.json` where the
 * original looks for one (the working directory, the package root and its parent), else the 20
 * embedded examples; shuffled with numpy's RandomState(seed); the first `n_train` train.
 * `eval_kwargs`: `objective_mode` (weighted | pareto), `seed` (42), `n_train` (15), `n_val` (5).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Kwargs } from "../../../src/config/kwargs.js";
import type { Guide, GuideResult } from "../../../src/domain/guide.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { packageRoot } from "../../../src/fs/package-root.js";
import { NumpyRandomState } from "../../../src/opt/objectives/numpy-random-state.js";
import { BBEH_BOOLEAN_EMBEDDED_EXAMPLES, type BbehExample } from "./bbeh-boolean-examples.js";
import type { PalOutcome, PalRunner } from "./pal-runner.js";
import { countOf, objectiveModeOf } from "./task-kwargs.js";

export const BBEH_INITIAL_CODE = `# Evaluate the boolean expression in \`question\` and set \`result\`.
expr = question.strip()
if expr.endswith(" is"):
    expr = expr[:-3].strip()
result = str(eval(expr))
`;

const TASK_JSON = join("bbeh", "benchmark_tasks", "bbeh_boolean_expressions", "task.json");

/** The examples and where they came from: a BBEH clone's task.json, else the embedded ones. */
export function bbehBooleanExamples(cwd: string = process.cwd()): { readonly examples: readonly BbehExample[]; readonly source: string } {
  const root = packageRoot();
  for (const base of [cwd, root, dirname(root)]) {
    const path = resolve(base, TASK_JSON);
    if (!existsSync(path)) continue;
    try {
      const data = JSON.parse(readFileSync(path, "utf8")) as { examples?: unknown };
      if (Array.isArray(data.examples)) return { examples: data.examples as BbehExample[], source: path };
    } catch {
      // An unreadable file is passed over, as the original does.
    }
  }
  return { examples: BBEH_BOOLEAN_EMBEDDED_EXAMPLES, source: "embedded" };
}

/** Train and validation questions: the examples in numpy's RandomState(seed).shuffle order, split as the original splits. */
export function bbehSplits(examples: readonly BbehExample[], nTrain: number, nVal: number, seed: number): { train: BbehExample[]; val: BbehExample[] } {
  const order = examples.map((_, i) => i);
  new NumpyRandomState(seed).shuffle(order);
  const items = order.map((i) => examples[i]!);
  const total = Math.min(nTrain + nVal, items.length);
  const trainN = Math.min(nTrain, total);
  const valN = Math.min(nVal, total - trainN);
  return { train: items.slice(0, trainN), val: items.slice(trainN, trainN + valN) };
}

/** A fenced reply's body (opening fence line and a closing fence dropped); the code trimmed. */
export function stripCodeFences(code: string): string {
  const trimmed = code.trim();
  if (!trimmed.startsWith("```")) return trimmed;
  const lines = trimmed.split("\n").slice(1);
  if (lines.length > 0 && lines[lines.length - 1]!.trim().startsWith("```")) lines.pop();
  return lines.join("\n");
}

/** Python's `string.punctuation`. */
const PUNCTUATION = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");

/** Lower-cased, without punctuation or spaces: "True." equals "true". */
export function normalizePalAnswer(answer: string | null): string {
  if (answer === null) return "";
  return [...answer.trim().toLowerCase()].filter((c) => !PUNCTUATION.has(c) && c !== " ").join("");
}

/**
 * CPU seconds kept to hundredths: a rerun must repeat what it records, and a short program's CPU
 * time varies with the machine's load (docs/performance.md, "multiobjective_bbeh's CPU time").
 */
export const roundedCpuSeconds = (seconds: number): number => Math.round(seconds * 100) / 100;

/**
 * The guide of one job. A program's outcome on a question is computed once per job and reused
 * (search re-evaluates the same programs often): the job's record then repeats itself, and a
 * program with randomness keeps its first answer (see docs/differences.md).
 */
export function bbehPalGuide(runner: PalRunner): Guide {
  const outcomes = new Map<string, Promise<PalOutcome>>();
  const outcomeOf = (code: string, question: string, signal: AbortSignal | undefined): Promise<PalOutcome> => {
    const key = JSON.stringify([code, question]);
    let outcome = outcomes.get(key);
    if (outcome === undefined) {
      outcome = runner.run(code, question, signal);
      outcomes.set(key, outcome);
      // A run that got no answer (worker failure, interrupted job) is not an outcome: the next asks again.
      outcome.catch(() => outcomes.delete(key));
    }
    return outcome;
  };
  return {
    name: "trace_bench.examples.multiobjective_bbeh.BBEHGuide",
    async evaluate(input, response, info, context): Promise<GuideResult> {
      const question = input === null || input === undefined ? "" : String(input);
      const expected = info === null || info === undefined ? "" : String(info);
      const outcome = await outcomeOf(stripCodeFences(String(response)), question, context.signal);
      const execution_time_s = roundedCpuSeconds(outcome.executionTimeS);
      const graded = (correct: boolean, feedback: string): GuideResult => ({ score: correct ? 1 : 0, feedback, scores: { accuracy: correct ? 1 : 0, execution_time_s } });
      if (outcome.error !== null) return graded(false, `EXEC_ERROR: ${outcome.error}`);
      if (outcome.result === null) return graded(false, "No result produced.");
      if (normalizePalAnswer(outcome.result) === normalizePalAnswer(expected)) return graded(true, `CORRECT: '${outcome.result}'`);
      return graded(false, `WRONG: got '${outcome.result}', expected '${expected}'`);
    },
  };
}

/**
 * Programs the stub LLM may propose: right, right without builtins, often wrong, always wrong.
 * None loops, so their CPU time rounds to 0 and stub reruns repeat.
 */
const STUB_PROGRAMS = [
  BBEH_INITIAL_CODE,
  'expr = question.strip()\nif expr.endswith(" is"):\n    expr = expr[:-3]\nresult = str(eval(expr, {"__builtins__": {}}))\n',
  'result = "True"\n',
  "result = question\n",
];

export function multiobjectiveBbehTask(runner: PalRunner, evalKwargs: Kwargs): TaskBundle {
  const mode = objectiveModeOf(evalKwargs);
  const seed = countOf(evalKwargs, "seed", 42);
  const nTrain = countOf(evalKwargs, "n_train", 15);
  const nVal = countOf(evalKwargs, "n_val", 5);
  const { examples, source } = bbehBooleanExamples();
  // As the original: only the train split is used (its validation examples are set aside).
  const { train } = bbehSplits(examples, nTrain, nVal, seed);
  return {
    taskId: "internal:multiobjective_bbeh",
    parameters: [
      {
        name: "program",
        kind: "code",
        value: BBEH_INITIAL_CODE,
        description: "Python code that evaluates boolean expressions (PAL strategy). The variable 'question' contains the problem text. Set 'result' to the answer string ('True' or 'False').",
        trainable: true,
      },
    ],
    agent: { name: "ParameterEcho", run: (_input, values) => values["program"] },
    guide: bbehPalGuide(runner),
    train_dataset: { inputs: train.map((e) => e.input), infos: train.map((e) => e.target) },
    optimizer_kwargs: {
      objective: "Improve the Python code to correctly evaluate boolean expressions. The code receives a 'question' variable and must set 'result' to the answer string.",
      memory_size: 10,
    },
    stubAlternatives: { program: STUB_PROGRAMS },
    metadata: {
      benchmark: "multiobjective",
      entry: "bbeh_boolean_expressions",
      objective_mode: mode,
      n_train: nTrain,
      n_val: nVal,
      data_source: source,
      objective_config: { mode, weights: { accuracy: 1.0, execution_time_s: 0.3 }, minimize: ["execution_time_s"], seed, tie_break: "weighted" },
    },
  };
}
