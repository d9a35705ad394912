/**
 * The trainer port. A trainer searches over a task's parameter values using the optimizer and
 * LLM it is given, reports every step through `emit`, honours `signal`, and returns the values
 * it ends with. Randomness comes only from `rng`.
 */
import type { Kwargs } from "../config/kwargs.js";
import type { Agent, Dataset, Guide } from "../tasks/task-suite.js";
import type { ParameterSpec, ParameterValues } from "./parameter.js";
import type { Rng } from "./rng.js";

export interface IterationReport {
  readonly step: number;
  readonly score: number | null;
  readonly best_score: number | null;
  readonly values: ParameterValues;
  readonly llm_calls: number;
  readonly evaluations: number;
  readonly scores?: Readonly<Record<string, number>>;
}

export interface TrainerContext {
  readonly parameters: readonly ParameterSpec[];
  readonly initialValues: ParameterValues;
  readonly agent: Agent;
  readonly guide: Guide;
  readonly train: Dataset;
  readonly validate?: Dataset;
  /** Resolved trainer kwargs (spec §2.6). */
  readonly kwargs: Kwargs;
  readonly optimizer: { readonly name: string; readonly kwargs: Kwargs | readonly Kwargs[] };
  readonly rng: Rng;
  readonly emit: (iteration: IterationReport) => void;
  readonly signal: AbortSignal;
}

export interface TrainerResult {
  readonly values: ParameterValues;
}

export interface Trainer {
  readonly id: string;
  train(context: TrainerContext): Promise<TrainerResult>;
}
