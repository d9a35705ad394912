/**
 * What all jobs of a run share about LLM calls: the price table, the run's budget and what it has
 * spent (billed calls only: replies answered from a journal cost nothing), and the run-stopping
 * error (a wrong key, an unknown model) after which no job sends another request.
 */
import type { LlmError } from "./llm-error.js";
import type { LlmUsage } from "./llm.js";

export interface BudgetLimits {
  readonly max_tokens_per_job?: number | null;
  readonly max_cost_per_job?: number | null;
  readonly max_tokens_per_run?: number | null;
  readonly max_cost_per_run?: number | null;
}

export type PriceOf = (model: string, usage: LlmUsage) => number | null;

export interface RunCallsOptions {
  /** Answer re-runs of interrupted jobs from their journal (mode real; the stub costs nothing). */
  readonly journaling: boolean;
  readonly price: PriceOf;
  readonly budget: BudgetLimits;
  /** What earlier invocations of this run already spent (billed). */
  readonly spent?: { readonly tokens: number; readonly cost: number };
  /** Called once, with the first error that no retry and no other job can fix. */
  readonly onRunStopped?: (error: LlmError) => void;
}

const limit = (value: number | null | undefined) => (typeof value === "number" && value > 0 ? value : null);

export class RunCalls {
  readonly journaling: boolean;
  readonly price: PriceOf;
  readonly jobTokenLimit: number | null;
  readonly jobCostLimit: number | null;
  private readonly runTokenLimit: number | null;
  private readonly runCostLimit: number | null;
  private spentTokens: number;
  private spentCost: number;
  private stopping: LlmError | null = null;
  private readonly onRunStopped: ((error: LlmError) => void) | undefined;

  constructor(options: RunCallsOptions) {
    this.journaling = options.journaling;
    this.price = options.price;
    this.jobTokenLimit = limit(options.budget.max_tokens_per_job);
    this.jobCostLimit = limit(options.budget.max_cost_per_job);
    this.runTokenLimit = limit(options.budget.max_tokens_per_run);
    this.runCostLimit = limit(options.budget.max_cost_per_run);
    this.spentTokens = options.spent?.tokens ?? 0;
    this.spentCost = options.spent?.cost ?? 0;
    this.onRunStopped = options.onRunStopped;
  }

  /** A billed call's tokens and cost (null cost: unknown price, counted as 0 against a cost budget it cannot be checked for). */
  addSpending(tokens: number, cost: number | null): void {
    this.spentTokens += tokens;
    this.spentCost += cost ?? 0;
  }

  /** Why the run may not spend more, or null. */
  runBudgetSpent(): string | null {
    if (this.runTokenLimit !== null && this.spentTokens >= this.runTokenLimit) return `run token budget spent: ${this.spentTokens} of max_tokens_per_run ${this.runTokenLimit}`;
    if (this.runCostLimit !== null && this.spentCost >= this.runCostLimit) return `run cost budget spent: $${this.spentCost.toFixed(4)} of max_cost_per_run $${this.runCostLimit}`;
    return null;
  }

  /** The error that stopped the run, or null. */
  get stoppedBy(): LlmError | null {
    return this.stopping;
  }

  stopRun(error: LlmError): void {
    if (this.stopping !== null) return;
    this.stopping = error;
    this.onRunStopped?.(error);
  }
}
