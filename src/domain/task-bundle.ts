/**
 * Everything one job optimizes and measures: the parameters, the agent that uses them, the guide
 * that scores it, the datasets and the optimizer kwargs. A task suite builds a fresh one per job.
 */
import type { Kwargs } from "../config/kwargs.js";
import type { Agent } from "./agent.js";
import type { Dataset } from "./dataset.js";
import type { Guide } from "./guide.js";
import type { JsonValue } from "./json-value.js";
import type { ParameterSpec } from "./parameter.js";

export interface TaskBundle {
  readonly taskId: string;
  readonly parameters: readonly ParameterSpec[];
  readonly agent: Agent;
  readonly guide: Guide;
  readonly train_dataset: Dataset;
  readonly validate_dataset?: Dataset;
  readonly test_dataset?: Dataset;
  /** A mapping, or a list of mappings (one optimizer per parameter group). */
  readonly optimizer_kwargs: Kwargs | readonly Kwargs[];
  readonly guide_kwargs?: Kwargs;
  readonly logger_kwargs?: Kwargs;
  readonly metadata: Kwargs;
  /**
   * The score the guide gives a candidate it could not evaluate (LLM4AD: −1,000,000 for an
   * exception, a timeout or a non-finite result). A job whose result is this score found no valid
   * candidate and ends `no_valid_candidate`. Absent: the task has no such value.
   */
  readonly failureScore?: number;
  /**
   * Values the stub LLM of mode stub may propose for this task's text and code parameters, by
   * parameter name (a real model writes new ones): e.g. an LLM4AD task's alternative heuristics.
   */
  readonly stubAlternatives?: Readonly<Record<string, readonly JsonValue[]>>;
}
