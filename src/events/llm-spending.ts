/** What a run's LLM calls spent, summed over its models: for the console, `run --json`, `runs` and the dashboard. */
import { reportedCost, zeroTokens, type RunState, type TokenTotals } from "./run-state.js";

/** What a run's LLM calls spent so far, every attempt (replayed replies are free). */
export interface LlmSpending {
  readonly calls: number;
  readonly failed: number;
  readonly aborted: number;
  readonly tokens: TokenTotals;
  /** USD, or null when some model has no price. */
  readonly cost: number | null;
}

export function llmSpending(state: RunState): LlmSpending {
  let calls = 0;
  let failed = 0;
  let aborted = 0;
  let usd = 0;
  let unknown = false;
  const tokens = zeroTokens();
  for (const use of state.llmByModel.values()) {
    calls += use.calls;
    failed += use.failed;
    aborted += use.aborted;
    tokens.prompt_tokens += use.tokens.prompt_tokens;
    tokens.completion_tokens += use.tokens.completion_tokens;
    tokens.total_tokens += use.tokens.total_tokens;
    usd += use.cost.usd;
    unknown ||= use.cost.unknown;
  }
  return { calls, failed, aborted, tokens, cost: reportedCost({ usd, unknown }) };
}
