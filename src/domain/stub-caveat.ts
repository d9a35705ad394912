/** What a stub run's scores mean (the stub proposes seeded changes; it is not a model): said by the run's closing lines and by the dashboard's run page. */
export const STUB_CAVEAT = "Mode stub: scores rank the search procedures against the stub LLM's seeded proposals, not optimizers or models; use mode: real to compare those.";
