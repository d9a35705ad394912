/**
 * What `run` says about its budgets when it ends: each cap the config set and what was spent
 * against it (calls cut off without a bill counted at their most), and, when the run budget left
 * matrix jobs not executed, the one line that says how to continue.
 */
import type { BudgetConfig } from "../config/run-config.js";
import type { RunCalls } from "../llm/run-calls.js";

/** Exit code of a run that stopped on its budget with jobs not executed. */
export const BUDGET_STOPPED_EXIT = 3;

export interface BudgetSpent {
  readonly limit: number;
  readonly spent: number;
}

/** Each cap the config set, with what was spent against it (per job: the most one job attempt spent in this invocation). */
export function budgetSpent(budget: BudgetConfig, calls: RunCalls): Partial<Record<keyof BudgetConfig, BudgetSpent>> {
  const run = calls.ledger.spent;
  const job = calls.mostSpentByAJob;
  const spentOn: Record<keyof BudgetConfig, number> = { max_tokens_per_job: job.tokens, max_cost_per_job: job.cost, max_tokens_per_run: run.tokens, max_cost_per_run: run.cost };
  const out: Partial<Record<keyof BudgetConfig, BudgetSpent>> = {};
  for (const key of Object.keys(spentOn) as (keyof BudgetConfig)[]) {
    const limit = budget[key];
    if (typeof limit === "number" && limit > 0) out[key] = { limit, spent: spentOn[key] };
  }
  return out;
}

const shown = (key: keyof BudgetConfig, value: number) => (key.startsWith("max_cost") ? `$${value.toFixed(4)}` : String(value));

/** `Budget: max_tokens_per_run 6000: 5876 spent; ...`, or nothing when the config sets no cap. */
export function budgetLine(spent: Partial<Record<keyof BudgetConfig, BudgetSpent>>): string[] {
  const parts = (Object.entries(spent) as [keyof BudgetConfig, BudgetSpent][]).map(([key, { limit, spent: used }]) =>
    key.endsWith("_per_job") ? `${key} ${shown(key, limit)}: at most ${shown(key, used)} by one job` : `${key} ${shown(key, limit)}: ${shown(key, used)} spent`,
  );
  if (parts.length === 0) return [];
  return [`Budget: ${parts.join("; ")} (the preflight included; calls cut off without a bill counted at their most)`];
}

/** Matrix jobs this invocation left unstarted because the run's budget was spent. */
export function jobsLeftByBudget(notRun: Readonly<Record<string, string>>): number {
  return Object.values(notRun).filter((reason) => reason.startsWith("run_budget_spent")).length;
}

/** The one line saying how to continue a run its budget stopped. */
export function continueLine(left: number, reason: string, configPath: string, resumeWith: string): string {
  const key = reason.includes("cost budget") ? "max_cost_per_run" : "max_tokens_per_run";
  return `trace-bench: the run's budget is spent and ${left} job${left === 1 ? " was" : "s were"} not executed; to continue, raise budget.${key} in ${configPath} and run: ${resumeWith}`;
}
