/**
 * The trainer port. A trainer searches over a task's parameter values with the optimizers it
 * creates, reports every step through `emit`, honours `signal`, and returns the values it ends
 * with. Randomness comes only from `rng`; parallel work goes through bounded helpers so results
 * never depend on completion order.
 */
import type { Kwargs } from "../config/kwargs.js";
import type { Agent } from "../domain/agent.js";
import type { Dataset } from "../domain/dataset.js";
import type { Guide } from "../domain/guide.js";
import type { ChatRequest, ChatResponse } from "../llm/llm.js";
import type { Optimizer } from "./optimizer.js";
import type { ParameterSpec, ParameterValues } from "../domain/parameter.js";
import type { ProblemInstance } from "./problem.js";
import type { Rng } from "./rng.js";
import type { Example, Rollout } from "./rollout.js";

export interface IterationReport {
  readonly step: number;
  /** Score of the candidate this step produced or selected. */
  readonly score: number | null;
  /** Best score so far. */
  readonly best_score: number | null;
  /** Parameter values of that candidate. */
  readonly values: ParameterValues;
  readonly scores?: Readonly<Record<string, number>>;
}

export interface RolloutRequest {
  /** Score of an example whose agent or guide threw (null = invalid). */
  readonly minScore?: number | null;
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
  readonly rng: Rng;
  readonly signal: AbortSignal;
  /** One IterationCompleted event; LLM-call and evaluation counts are added for the trainer. */
  emit(report: IterationReport): void;
  /** A fresh optimizer as the job configures it (name, kwargs, metered LLM). */
  createOptimizer(): Optimizer;
  /** Agent + guide on each example under `values`, bounded by `num_threads`, in input order. */
  rollout(values: ParameterValues, examples: readonly Example[], request?: RolloutRequest): Promise<Rollout[]>;
  /** The problem an optimizer sees for these rollouts. */
  problem(values: ParameterValues, rollouts: readonly Rollout[], feedbackSuffix?: string): ProblemInstance;
  /** A remark for the next IterationCompleted (unreadable replies, rejected updates). */
  note(text: string): void;
  /**
   * The trainer made `values` from `parents` without the optimizer (a merge): its candidate's
   * parents on record. A proposal's parent is known without this.
   */
  derived?(values: ParameterValues, parents: readonly ParameterValues[]): void;
  /**
   * The embeddings of `texts`, in order, each call recorded with role `embedding` (journaled,
   * budgeted, priced). `model`: the trainer's own choice, else the run's (llm.embedding).
   * Absent where the job has no embeddings endpoint.
   */
  embed?(texts: readonly string[], model?: string): Promise<number[][]>;
  /** One chat call recorded with role `summarizer`, on the optimizer's endpoint. Absent where there is none. */
  summarize?(request: ChatRequest): Promise<ChatResponse>;
}

export interface TrainerResult {
  readonly values: ParameterValues;
}

export interface Trainer {
  readonly id: string;
  /** Kwargs this trainer reads beyond the base list of every trainer (for `validate --strict` and `run`). */
  readonly kwargs?: readonly string[];
  /**
   * The agent framework the trainer optimizes (DSPyTrainer: "dspy"): a job's task is loaded with
   * `eval_kwargs.framework` set to it unless the config sets one (spec §5.2).
   */
  readonly framework?: string;
  /**
   * Why this build cannot train the task's agent at all (the job is then `skipped` before its
   * initial evaluation pays for anything), or null. Absent: it can train every agent.
   */
  skipReason?(agent: Agent, kwargs: Readonly<Record<string, unknown>>): string | null;
  train(context: TrainerContext): Promise<TrainerResult>;
}
