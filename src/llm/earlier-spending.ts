/**
 * What a run's earlier invocations spent, from its log, for the run's budget on a resume: every
 * billed call and preflight, and each call cut off without a bill (aborted, lost) at its most,
 * since the provider may have billed it.
 */
import type { StoredEvent } from "../events/event-schema.js";
import { cutOffCalls, type CutOffCall } from "../events/projections/cut-off-calls.js";
import type { Spend } from "./budget-ledger.js";
import type { PriceOf } from "./run-calls.js";

/** What cut-off calls may have been billed, at most (calls logged without a bound count nothing: older logs). */
export function atMostSpend(calls: readonly CutOffCall[], price: PriceOf): Spend {
  let tokens = 0;
  let cost = 0;
  for (const c of calls) {
    if (c.tokens === null) continue;
    tokens += c.tokens;
    cost += price(c.model, { prompt_tokens: c.prompt_tokens!, completion_tokens: c.completion_tokens!, total_tokens: c.tokens }) ?? 0;
  }
  return { tokens, cost };
}

export function earlierSpending(events: Iterable<StoredEvent>, price: PriceOf): Spend {
  let tokens = 0;
  let cost = 0;
  const byJob = new Map<string, StoredEvent[]>();
  for (const event of events) {
    if (event.type === "RunStarted") {
      const preflight = event.data.llm_preflight;
      for (const p of preflight === undefined ? [] : Array.isArray(preflight) ? preflight : [preflight]) {
        tokens += p.total_tokens;
        cost += p.cost_usd ?? 0;
      }
    }
    if (event.job_id === null) continue;
    if (event.type === "LlmCallCompleted" && event.data.replayed !== true) {
      tokens += event.data.total_tokens;
      cost += event.data.cost_usd ?? 0;
    }
    if (event.type.startsWith("LlmCall") || event.type === "JobFinished") {
      let list = byJob.get(event.job_id);
      if (list === undefined) byJob.set(event.job_id, (list = []));
      list.push(event);
    }
  }
  for (const history of byJob.values()) {
    const atMost = atMostSpend(cutOffCalls(history, false), price);
    tokens += atMost.tokens;
    cost += atMost.cost;
  }
  return { tokens, cost };
}
