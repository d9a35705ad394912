/**
 * The task port. A suite lists task ids and builds a fresh `TaskBundle` per job: the parameters
 * to optimize, the agent that turns an input into a response with given parameter values, the
 * guide that scores a response (higher is better), datasets and optimizer kwargs.
 */
import type { Kwargs } from "../config/kwargs.js";
import type { ParameterSpec, ParameterValues } from "../opt/parameter.js";

export const SUITE_NAMES = ["llm4ad", "trace_examples", "internal", "veribench", "hf", "terminal_bench"] as const;
export type SuiteName = (typeof SUITE_NAMES)[number];

export interface Dataset {
  readonly inputs: readonly unknown[];
  readonly infos: readonly unknown[];
}

/** Passed to agents and guides: cancel long work when the job is interrupted or times out. */
export interface TaskCallContext {
  readonly signal?: AbortSignal;
}

export interface GuideResult {
  readonly score: number;
  readonly feedback: string;
  /** Per-metric scores of a multi-objective guide. */
  readonly scores?: Readonly<Record<string, number>>;
}

export interface Guide {
  /** Recorded as `resolved_guide`, e.g. `trace_bench.internal.NegativeAbsoluteError`. */
  readonly name: string;
  evaluate(input: unknown, response: unknown, info: unknown, context: TaskCallContext): GuideResult | Promise<GuideResult>;
}

/** How an agent uses its parameters, shown to optimizers as #Code and #Documentation. */
export interface AgentProgram {
  readonly code: string;
  readonly documentation?: Readonly<Record<string, string>>;
}

export interface Agent {
  /** Recorded as the bundle's `entry` metadata. */
  readonly name: string;
  readonly program?: AgentProgram;
  /** The response for one input under the given parameter values; throws on an execution error. */
  run(input: unknown, values: ParameterValues, context: TaskCallContext): unknown;
}

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
}

export interface TaskSuite {
  /** A built-in `SuiteName`, or the name of a suite loaded from TRACE_BENCH_TASK_MODULES. */
  readonly name: string;
  /** Full task ids (`<suite>:<name>`) in discovery order. */
  list(): readonly string[];
  /** A fresh bundle. Throws `TaskUnavailableError` (job skipped) or `TaskNotFoundError`. */
  load(taskId: string, evalKwargs: Kwargs): TaskBundle | Promise<TaskBundle>;
}
