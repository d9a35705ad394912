/**
 * The run's billed LLM use over every attempt, by model and by role, and its preflight requests
 * (replayed replies are not billed: they are left out).
 */
import type { LlmUse } from "./totals.js";
import { addCost, addTokens, zeroUse } from "./totals.js";
import type { RunProjection } from "./projection.js";

export const llmUseProjection: RunProjection = {
  canHandle: new Set(["RunStarted", "LlmCallCompleted", "LlmCallFailed", "LlmCallAborted"]),
  evolve(run, event) {
    switch (event.type) {
      case "RunStarted": {
        const data = event.data;
        const preflights = data.llm_preflight === undefined ? [] : Array.isArray(data.llm_preflight) ? data.llm_preflight : [data.llm_preflight];
        for (const preflight of preflights) {
          run.preflight.calls += 1;
          addTokens(run.preflight.tokens, preflight);
          addCost(run.preflight.cost, preflight.cost_usd);
        }
        return;
      }
      case "LlmCallCompleted":
        if (event.data.replayed === true) return;
        for (const use of usesOf(run, event.data)) {
          use.calls += 1;
          addTokens(use.tokens, event.data);
          addCost(use.cost, event.data.cost_usd);
        }
        return;
      case "LlmCallFailed":
        for (const use of usesOf(run, event.data)) use.failed += 1;
        return;
      case "LlmCallAborted":
        for (const use of usesOf(run, event.data)) use.aborted += 1;
        return;
    }
  },
};

/** The run's LLM use by the call's model and by its role. */
function usesOf(run: { readonly llmByModel: Map<string, LlmUse>; readonly llmByRole: Map<string, LlmUse> }, call: { model: string; role: string }): LlmUse[] {
  const of = (map: Map<string, LlmUse>, key: string) => {
    let use = map.get(key);
    if (use === undefined) map.set(key, (use = zeroUse()));
    return use;
  };
  return [of(run.llmByModel, call.model), of(run.llmByRole, call.role)];
}
