/**
 * The run's billed LLM use over every attempt, by model and by role, and its preflight requests
 * (replayed replies are not billed: they are left out).
 */
import type { LlmUse } from "./totals.js";
import { addCost, addTokens, zeroUse } from "./totals.js";
import type { Projection } from "./projection.js";

export interface RunLlmUse {
  /** Billed LLM use over every attempt (replayed replies excluded), by model and by role. */
  readonly byModel: Map<string, LlmUse>;
  readonly byRole: Map<string, LlmUse>;
  /** Preflight requests of every invocation (mode real), billed like any call. */
  readonly preflight: LlmUse;
}

export const llmUseProjection: Projection<RunLlmUse> = {
  canHandle: new Set(["RunStarted", "LlmCallCompleted", "LlmCallFailed", "LlmCallAborted"]),
  initialState: () => ({ byModel: new Map(), byRole: new Map(), preflight: zeroUse() }),
  evolve(use, event) {
    switch (event.type) {
      case "RunStarted": {
        const data = event.data;
        const preflights = data.llm_preflight === undefined ? [] : Array.isArray(data.llm_preflight) ? data.llm_preflight : [data.llm_preflight];
        for (const preflight of preflights) {
          use.preflight.calls += 1;
          addTokens(use.preflight.tokens, preflight);
          addCost(use.preflight.cost, preflight.cost_usd);
        }
        return;
      }
      case "LlmCallCompleted":
        if (event.data.replayed === true) return;
        for (const of of usesOf(use, event.data)) {
          of.calls += 1;
          addTokens(of.tokens, event.data);
          addCost(of.cost, event.data.cost_usd);
        }
        return;
      case "LlmCallFailed":
        for (const of of usesOf(use, event.data)) of.failed += 1;
        return;
      case "LlmCallAborted":
        for (const of of usesOf(use, event.data)) of.aborted += 1;
        return;
    }
  },
};

/** The run's LLM use by the call's model and by its role. */
function usesOf(use: RunLlmUse, call: { model: string; role: string }): LlmUse[] {
  const of = (map: Map<string, LlmUse>, key: string) => {
    let found = map.get(key);
    if (found === undefined) map.set(key, (found = zeroUse()));
    return found;
  };
  return [of(use.byModel, call.model), of(use.byRole, call.role)];
}
