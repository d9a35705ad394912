/**
 * The evaluation rule of spec §5.3: mean guide score over a split, with the first three
 * feedbacks. An agent or guide that throws ends the evaluation with a null score and says why.
 */
import type { ParameterValues } from "../domain/parameter.js";
import type { Dataset } from "../domain/dataset.js";
import type { TaskBundle } from "../domain/task-bundle.js";
import type { TaskCallContext } from "../domain/task-call-context.js";

export interface DatasetScore {
  readonly split: string;
  readonly score: number | null;
  readonly feedback: string;
  /** One score per example scored (shorter than the split when evaluation stopped early). */
  readonly exampleScores: readonly number[];
}

const hasExamples = (d: Dataset | undefined): d is Dataset => d !== undefined && d.inputs.length > 0 && d.infos.length > 0;

/** The split used for initial/final scores: validation when it has examples, else train. */
export function evaluationSplit(bundle: TaskBundle): { readonly name: string; readonly dataset: Dataset } {
  if (hasExamples(bundle.validate_dataset)) return { name: "validate_dataset", dataset: bundle.validate_dataset };
  return { name: "train_dataset", dataset: bundle.train_dataset };
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export async function scoreDataset(
  bundle: TaskBundle,
  values: ParameterValues,
  split: { readonly name: string; readonly dataset: Dataset },
  context: TaskCallContext = {},
): Promise<DatasetScore> {
  const { name, dataset } = split;
  const n = Math.min(dataset.inputs.length, dataset.infos.length);
  if (n === 0) return { split: name, score: null, feedback: `${name}: empty_dataset`, exampleScores: [] };
  const scores: number[] = [];
  const feedbacks: string[] = [];
  for (let i = 0; i < n; i++) {
    const input = dataset.inputs[i];
    let response: unknown;
    try {
      response = await bundle.agent.run(input, values, context);
    } catch (error) {
      return { split: name, score: null, feedback: `${name}: agent_error[${i}]: ${errorText(error)}`, exampleScores: scores };
    }
    let result;
    try {
      result = await bundle.guide.evaluate(input, response, dataset.infos[i], context);
    } catch (error) {
      return { split: name, score: null, feedback: `${name}: eval_error[${i}]: ${errorText(error)}`, exampleScores: scores };
    }
    if (typeof result.score !== "number" || !Number.isFinite(result.score)) {
      return { split: name, score: null, feedback: `${name}: non_numeric_score[${i}]: ${result.feedback}`, exampleScores: scores };
    }
    scores.push(result.score);
    feedbacks.push(result.feedback);
  }
  const mean = scores.reduce((a, b) => a + b, 0) / n;
  return { split: name, score: mean, feedback: `${name}: mean over ${n} examples. ${feedbacks.slice(0, 3).join(" | ")}`, exampleScores: scores };
}
