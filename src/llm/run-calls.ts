/**
 * What all jobs of a run share about LLM calls: the price table, the run's budget ledger (billed
 * calls only: replies answered from a journal cost nothing; calls in flight hold their worst case
 * reserved), and the run-stopping error (a wrong key, an unknown model) after which no job sends
 * another request.
 */
import type { CutOffCall } from "../events/projections/cut-off-calls.js";
import { BudgetLedger, type Spend } from "./budget-ledger.js";
import { atMostSpend } from "./earlier-spending.js";
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
  /** The run's budget: spent (every invocation), reserved by requests in flight. */
  readonly ledger: BudgetLedger;
  /** Set when a request did not fit the run's budget: no new job starts. */
  private refused: string | null = null;
  private mostByAJob: Spend = { tokens: 0, cost: 0 };
  /** The smallest worst case of any request so far (tokens and USD, each its own minimum). */
  private smallest: Spend | null = null;
  private stopping: LlmError | null = null;
  private readonly onRunStopped: ((error: LlmError) => void) | undefined;

  constructor(options: RunCallsOptions) {
    this.journaling = options.journaling;
    this.price = options.price;
    this.jobTokenLimit = limit(options.budget.max_tokens_per_job);
    this.jobCostLimit = limit(options.budget.max_cost_per_job);
    this.ledger = new BudgetLedger("run", limit(options.budget.max_tokens_per_run), limit(options.budget.max_cost_per_run), options.spent ?? { tokens: 0, cost: 0 });
    this.onRunStopped = options.onRunStopped;
  }

  /** A billed call's tokens and cost (null cost: unknown price, counted as 0 against a cost budget it cannot be checked for). */
  addSpending(tokens: number, cost: number | null): void {
    this.ledger.add({ tokens, cost: cost ?? 0 });
  }

  /**
   * Why the run may not spend more, or null: its budget reached, a request that did not fit, or
   * less left (after what requests in flight reserved) than the smallest request so far may use.
   * No new job starts then: it could not send a request.
   */
  runBudgetSpent(): string | null {
    // Once said, it stays said: the jobs it kept from starting are labelled with it at the end.
    this.refused ??= this.tooLittleLeft();
    return this.ledger.spentOut() ?? this.refused;
  }

  private tooLittleLeft(): string | null {
    if (this.smallest === null) return null;
    const left = this.ledger.left;
    if (left.tokens < this.smallest.tokens) return `run token budget: ${left.tokens} tokens left of max_tokens_per_run ${this.ledger.tokenLimit}, less than the smallest request so far may use (${this.smallest.tokens})`;
    if (left.cost < this.smallest.cost) return `run cost budget: $${left.cost.toFixed(4)} left of max_cost_per_run $${this.ledger.costLimit}, less than the smallest request so far may cost ($${this.smallest.cost.toFixed(4)})`;
    return null;
  }

  /** A request's worst case, as a job reserves it (the smallest tells whether a new job could send one). */
  noteWorstCase(worst: Spend): void {
    this.smallest = this.smallest === null ? worst : { tokens: Math.min(this.smallest.tokens, worst.tokens), cost: Math.min(this.smallest.cost, worst.cost) };
  }

  /** What cut-off calls may have been billed, at most. */
  atMost(calls: readonly CutOffCall[]): Spend {
    return atMostSpend(calls, this.price);
  }

  /** A request did not fit the run's budget: the run starts no new job. */
  noteRunRefusal(reason: string): void {
    this.refused ??= reason;
  }

  /** What one job's attempt has spent so far (for the report: the most any job spent). */
  noteJobSpent(spent: Spend): void {
    this.mostByAJob = { tokens: Math.max(this.mostByAJob.tokens, spent.tokens), cost: Math.max(this.mostByAJob.cost, spent.cost) };
  }

  /** The most one job attempt of this invocation spent (tokens and USD, each its own maximum). */
  get mostSpentByAJob(): Spend {
    return this.mostByAJob;
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
