/** The guide scores a response to an input (higher is better) and says why, for the optimizer. */
import type { TaskCallContext } from "./task-call-context.js";

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
