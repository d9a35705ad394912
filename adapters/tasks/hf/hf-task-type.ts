/**
 * What a task type (the original's task module) is: how a dataset row becomes examples, what the
 * agent gets as input and the guide as info, and how a reply is scored. One file per type.
 */
import type { Dataset } from "../../../src/domain/dataset.js";
import type { GuideResult } from "../../../src/domain/guide.js";
import type { TaskCallContext } from "../../../src/domain/task-call-context.js";
import type { HfExample, HfRow } from "./hf-example.js";
import type { HfTaskEntry } from "./hf-task-entry.js";

export interface HfTaskType {
  readonly key: string;
  /** Recorded as the job's `resolved_guide`. */
  readonly guideName: string;
  /** Flattens the raw context field of a `context_format` named after this type. */
  formatContext(raw: unknown): string;
  /** Absent: the generic shaping (question, answer, context by `context_format`). */
  rowToExamples?(row: HfRow, entry: HfTaskEntry): HfExample[];
  /** Inputs for the agent and infos for the guide. */
  makeDataset(examples: readonly HfExample[]): Dataset;
  /** Score and feedback for the reply's text. */
  score(task: unknown, reply: string, info: unknown, context: TaskCallContext): GuideResult | Promise<GuideResult>;
}

/** Context-rich QA: the agent gets the whole example (question and context). */
export function examplesDataset(examples: readonly HfExample[]): Dataset {
  return { inputs: [...examples], infos: [...examples] };
}

/** Question-only agents (the BBEH style): the agent gets the question text. */
export function questionsDataset(examples: readonly HfExample[]): Dataset {
  return { inputs: examples.map((e) => e.question), infos: [...examples] };
}
