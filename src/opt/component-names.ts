/**
 * Names a config may give for a trainer's guide and logger (spec §1.3 strict checks, §8.4 logger
 * selection). Optimizer names live with the optimizers (optimizers/optimizer-registry.ts).
 */
export const GUIDE_NAMES = ["LLMJudge"] as const;

export const LOGGER_NAMES = ["ConsoleLogger", "DefaultLogger", "TensorboardLogger", "WandbLogger", "NullLogger"] as const;

/** Logger values that mean "no logger". */
export const NO_LOGGER_ALIASES = ["none", "null", "off", "disable", "disabled"] as const;

export function isNoLogger(name: string): boolean {
  return (NO_LOGGER_ALIASES as readonly string[]).includes(name.trim().toLowerCase());
}
