/**
 * Where the run's budget is held by another process (`--executor bullmq`: the coordinator, for every
 * worker's jobs): a job's request that the run's budget must admit is reserved there too, after the
 * job's own (synchronous) reservation, so that two workers together cannot pass it. Absent on the
 * local executor, whose run ledger is in the process.
 */
import type { Refusal, Spend } from "./budget-ledger.js";

export interface RunBudgetJudge {
  /** Reserves `worst` in the run's budget; resolves null when reserved, or with why not. */
  readonly admit: (worst: Spend) => Promise<Refusal | null>;
  /**
   * A request ended (or was not sent): what it reserved goes (`worst`: nothing for a request the
   * judge did not admit), what it billed stays.
   */
  readonly settle: (worst: Spend, billed: Spend) => void;
}
