/**
 * What each trainer logger name (the original's `opto.trainer.loggers` classes, spec §8.4) does in
 * trace-bench, and which ones it refuses: a logger either works or says why it cannot.
 *
 * - ConsoleLogger (the default), DefaultLogger: one line per iteration in the job's stdout.log
 *   (which every job has, whatever its logger).
 * - TensorboardLogger: also TensorBoard event files in the job's tb/ (scalars per iteration).
 * - NullLogger, or a none-alias: nothing besides stdout.log.
 * - WandbLogger: unavailable (below).
 */
import { didYouMean } from "../config/suggest.js";
import { isNoLogger, LOGGER_NAMES } from "../opt/component-names.js";

/** Loggers trace-bench knows by name but cannot provide, with the reason. */
export const UNAVAILABLE_LOGGERS: Readonly<Record<string, string>> = {
  WandbLogger: "trace-bench has no Weights & Biases client (nothing would be uploaded); use TensorboardLogger (event files in each job's tb/)",
};

/** The logger names a config or `--logger` may use (and `none`). */
export const USABLE_LOGGERS: readonly string[] = LOGGER_NAMES.filter((name) => !Object.hasOwn(UNAVAILABLE_LOGGERS, name));

/** Why `name` cannot be a trainer's logger, in one line; null when it can. */
export function loggerProblem(name: string): string | null {
  if (isNoLogger(name)) return null;
  if (Object.hasOwn(UNAVAILABLE_LOGGERS, name)) return `logger ${name} is not available: ${UNAVAILABLE_LOGGERS[name]}`;
  if (USABLE_LOGGERS.includes(name)) return null;
  return `logger not found: ${name}${didYouMean(name, USABLE_LOGGERS)} (known: ${USABLE_LOGGERS.join(", ")}, or none)`;
}

/** A `--logger` value that keeps the config's loggers (spec §1.4): absent, empty, `default` or `config`. */
export function keepsConfigLoggers(raw: string | undefined): raw is undefined {
  return raw === undefined || raw.trim() === "" || ["default", "config"].includes(raw.trim().toLowerCase());
}

/** Why a `--logger` value cannot be used, in one line; null when it can (`default`, `config` and none-aliases included). */
export function loggerFlagProblem(raw: string | undefined): string | null {
  if (keepsConfigLoggers(raw)) return null;
  const problem = loggerProblem(raw.trim());
  return problem === null ? null : `--logger: ${problem}`;
}
