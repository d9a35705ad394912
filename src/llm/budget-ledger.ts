/**
 * One budget scope (a job, or the run): its limits, what its requests spent, and what the
 * requests in flight have reserved. A request reserves its worst case before it is sent and
 * settles it when it ends (its billed tokens; nothing for an error reply; its worst case when it
 * was cut off and its bill is unknown), so requests in flight together can never pass a limit.
 */
export interface Spend {
  readonly tokens: number;
  /** USD; 0 for a model without a price (a cost budget for it is refused before the run). */
  readonly cost: number;
}

export const NOTHING: Spend = { tokens: 0, cost: 0 };

export type BudgetScope = "job" | "run";

export interface Refusal {
  readonly reason: string;
  /** True when the request would fit once the requests in flight settle (they may spend less than reserved). */
  readonly mayFitLater: boolean;
}

const usd = (value: number) => `$${value.toFixed(4)}`;

export class BudgetLedger {
  private spentTokens: number;
  private spentCost: number;
  private reservedTokens = 0;
  private reservedCost = 0;
  private waiters: (() => void)[] = [];

  constructor(
    readonly scope: BudgetScope,
    readonly tokenLimit: number | null,
    readonly costLimit: number | null,
    spent: Spend = NOTHING,
  ) {
    this.spentTokens = spent.tokens;
    this.spentCost = spent.cost;
  }

  get limited(): boolean {
    return this.tokenLimit !== null || this.costLimit !== null;
  }

  get spent(): Spend {
    return { tokens: this.spentTokens, cost: this.spentCost };
  }

  get reserved(): Spend {
    return { tokens: this.reservedTokens, cost: this.reservedCost };
  }

  /** Reserves `worst` when it fits beside what is spent and reserved; else says why not. */
  reserve(worst: Spend): Refusal | null {
    const tokens = this.tokenLimit === null ? null : this.refusal("token", worst.tokens, this.spentTokens, this.reservedTokens, this.tokenLimit, String);
    const cost = tokens !== null || this.costLimit === null ? null : this.refusal("cost", worst.cost, this.spentCost, this.reservedCost, this.costLimit, usd);
    const refused = tokens ?? cost;
    if (refused !== null) return refused;
    this.reservedTokens += worst.tokens;
    this.reservedCost += worst.cost;
    return null;
  }

  private refusal(unit: "token" | "cost", need: number, spent: number, reserved: number, limit: number, shown: (n: number) => string): Refusal | null {
    if (spent + reserved + need <= limit) return null;
    const key = `max_${unit === "token" ? "tokens" : "cost"}_per_${this.scope}`;
    const left = Math.max(0, limit - spent);
    const limitText = unit === "token" ? String(limit) : `$${limit}`;
    return {
      reason: `${this.scope} ${unit} budget: the next request may use up to ${shown(need)}${unit === "token" ? " tokens" : ""}, more than the ${shown(left)} left of ${key} ${limitText}`,
      mayFitLater: reserved > 0 && spent + need <= limit,
    };
  }

  /** A reserved request ended: its reservation goes, what it spent stays. */
  settle(worst: Spend, actual: Spend): void {
    this.reservedTokens = Math.max(0, this.reservedTokens - worst.tokens);
    this.reservedCost = Math.max(0, this.reservedCost - worst.cost);
    this.add(actual);
    const waiting = this.waiters;
    this.waiters = [];
    for (const wake of waiting) wake();
  }

  /** Spending no reservation covered (a replayed reply, what earlier invocations spent). */
  add(actual: Spend): void {
    this.spentTokens += actual.tokens;
    this.spentCost += actual.cost;
  }

  /** Resolves when a request in flight settles. */
  settled(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** What is left once every reservation is paid in full (Infinity where there is no limit). */
  get left(): Spend {
    const of = (limit: number | null, spent: number, reserved: number) => (limit === null ? Number.POSITIVE_INFINITY : Math.max(0, limit - spent - reserved));
    return { tokens: of(this.tokenLimit, this.spentTokens, this.reservedTokens), cost: of(this.costLimit, this.spentCost, this.reservedCost) };
  }

  /** Why this scope may spend nothing more (a limit reached), or null. */
  spentOut(): string | null {
    if (this.tokenLimit !== null && this.spentTokens >= this.tokenLimit) return `${this.scope} token budget spent: ${this.spentTokens} of max_tokens_per_${this.scope} ${this.tokenLimit}`;
    if (this.costLimit !== null && this.spentCost >= this.costLimit) return `${this.scope} cost budget spent: ${usd(this.spentCost)} of max_cost_per_${this.scope} $${this.costLimit}`;
    return null;
  }
}
