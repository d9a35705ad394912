/** Token and cost totals, and the run's LLM use by model or role: what several views add calls into. */

export interface TokenTotals {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** A sum of call costs; `unknown` when some call had no price (the sum is then not the cost). */
export interface CostTotal {
  usd: number;
  unknown: boolean;
}

/** LLM use of one model or role: answered, failed and aborted calls; tokens and cost of the answered. */
export interface LlmUse {
  calls: number;
  failed: number;
  aborted: number;
  tokens: TokenTotals;
  cost: CostTotal;
}

export const zeroTokens = (): TokenTotals => ({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });

export const zeroCost = (): CostTotal => ({ usd: 0, unknown: false });

export const zeroUse = (): LlmUse => ({ calls: 0, failed: 0, aborted: 0, tokens: zeroTokens(), cost: zeroCost() });

/** A cost total as reported: null when any part is unknown, never a partial sum. */
export const reportedCost = (cost: CostTotal): number | null => (cost.unknown ? null : Math.round(cost.usd * 1e8) / 1e8);

export function addCost(into: CostTotal, cost: number | null | undefined): void {
  if (typeof cost === "number") into.usd += cost;
  else into.unknown = true;
}

export function addTokens(into: TokenTotals, add: TokenTotals): void {
  into.prompt_tokens += add.prompt_tokens;
  into.completion_tokens += add.completion_tokens;
  into.total_tokens += add.total_tokens;
}

/**
 * The totals of a view that made no call: one read-only instance for every such view (see
 * docs/performance.md), replaced by its own on the first call (`ownTotals` in job-view.ts).
 */
export const NO_TOKENS: TokenTotals = Object.freeze(zeroTokens());
export const NO_COST: CostTotal = Object.freeze(zeroCost());
