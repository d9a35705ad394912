/**
 * The evaluation rule of spec §5.3: mean guide score over a split, with the first three
 * feedbacks. An agent or guide that throws ends the evaluation with a null score and says why.
 */
import type { ParameterValues } from "../domain/parameter.js";
import type { Dataset } from "../domain/dataset.js";
import type { TaskBundle } from "../domain/task-bundle.js";
import type { TaskCallContext } from "../domain/task-call-context.js";
import type { TaskLlm } from "../domain/task-llm.js";
import { aggregateScoreDicts } from "../opt/objectives/score-dicts.js";

export interface DatasetScore {
  readonly split: string;
  readonly score: number | null;
  readonly feedback: string;
  /** One score per example scored (shorter than the split when evaluation stopped early). */
  readonly exampleScores: readonly number[];
  /** A multi-objective guide's per-metric means over the split (each over the examples that report it); absent when it reports none or the evaluation has no score. */
  readonly scores?: Readonly<Record<string, number>>;
}

const hasExamples = (d: Dataset | undefined): d is Dataset => d !== undefined && d.inputs.length > 0 && d.infos.length > 0;

/** The split used for initial/final scores: validation when it has examples, else train. */
export function evaluationSplit(bundle: TaskBundle): { readonly name: string; readonly dataset: Dataset } {
  if (hasExamples(bundle.validate_dataset)) return { name: "validate_dataset", dataset: bundle.validate_dataset };
  return { name: "train_dataset", dataset: bundle.train_dataset };
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export interface ScoreOptions {
  /** Examples scored at once (the trainer's `num_threads`; default 1). */
  readonly concurrency?: number;
  /** The LLM of each example's agent and guide, by the example's index (default: the context's). */
  readonly llmFor?: (example: number) => TaskLlm;
}

/** One example's end: its score and feedback, or why the evaluation has no score. */
type ExampleEnd =
  | { readonly ok: true; readonly score: number; readonly feedback: string; readonly scores: Readonly<Record<string, number>> | undefined }
  | { readonly ok: false; readonly feedback: string };

async function scoreExample(bundle: TaskBundle, values: ParameterValues, name: string, dataset: Dataset, i: number, context: TaskCallContext): Promise<ExampleEnd> {
  const input = dataset.inputs[i];
  let response: unknown;
  try {
    response = await bundle.agent.run(input, values, context);
  } catch (error) {
    return { ok: false, feedback: `${name}: agent_error[${i}]: ${errorText(error)}` };
  }
  let result;
  try {
    result = await bundle.guide.evaluate(input, response, dataset.infos[i], context);
  } catch (error) {
    return { ok: false, feedback: `${name}: eval_error[${i}]: ${errorText(error)}` };
  }
  if (typeof result.score !== "number" || !Number.isFinite(result.score)) return { ok: false, feedback: `${name}: non_numeric_score[${i}]: ${result.feedback}` };
  return { ok: true, score: result.score, feedback: result.feedback, scores: result.scores };
}

/**
 * Scores the examples, up to `concurrency` at once. The result is the same at any concurrency:
 * examples are read in index order, and the first one (by index) without a score ends the
 * evaluation there, as it does one at a time; no example starts once one has failed.
 */
export async function scoreDataset(
  bundle: TaskBundle,
  values: ParameterValues,
  split: { readonly name: string; readonly dataset: Dataset },
  context: TaskCallContext = {},
  options: ScoreOptions = {},
): Promise<DatasetScore> {
  const { name, dataset } = split;
  const n = Math.min(dataset.inputs.length, dataset.infos.length);
  if (n === 0) return { split: name, score: null, feedback: `${name}: empty_dataset`, exampleScores: [] };
  const ends = new Array<ExampleEnd | undefined>(n);
  const contextOf = (i: number): TaskCallContext => (options.llmFor === undefined ? context : { ...context, llm: options.llmFor(i) });
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < n) {
      const i = next++;
      const end = await scoreExample(bundle, values, name, dataset, i, contextOf(i));
      ends[i] = end;
      if (!end.ok) failed = true;
    }
  };
  const lanes = Math.max(1, Math.min(n, Math.floor(options.concurrency ?? 1)));
  await Promise.all(Array.from({ length: lanes }, worker));
  const scores: number[] = [];
  const feedbacks: string[] = [];
  const metrics: Readonly<Record<string, number>>[] = [];
  for (let i = 0; i < n; i++) {
    const end = ends[i];
    // Not started: an example before it failed (found below, in index order).
    if (end === undefined) break;
    if (!end.ok) return { split: name, score: null, feedback: end.feedback, exampleScores: scores };
    scores.push(end.score);
    feedbacks.push(end.feedback);
    if (end.scores !== undefined) metrics.push(finiteMetrics(end.scores));
  }
  const mean = scores.reduce((a, b) => a + b, 0) / n;
  const metricMeans = aggregateScoreDicts(metrics);
  return {
    split: name,
    score: mean,
    feedback: `${name}: mean over ${n} examples. ${feedbacks.slice(0, 3).join(" | ")}`,
    exampleScores: scores,
    ...(Object.keys(metricMeans).length > 0 ? { scores: metricMeans } : {}),
  };
}

/** The metrics with a finite value (a log has no place for NaN or ±∞: JSON cannot say them). */
function finiteMetrics(scores: Readonly<Record<string, number>>): Record<string, number> {
  const kept: Record<string, number> = {};
  for (const [metric, value] of Object.entries(scores)) if (typeof value === "number" && Number.isFinite(value)) kept[metric] = value;
  return kept;
}
