/**
 * The errors that are the user's (or their machine's) to fix, as one union, and what the CLI's
 * edge makes of each: its line(s) and exit code, never a stack trace. Anything outside the union
 * is a bug (main prints its stack, exit 70).
 *
 * Type-only imports: every verb's edge goes through this file, and a quick verb must not load the
 * config, engine or event-log code to be able to name their errors.
 */
import type { ConfigError } from "../config/config-error.js";
import type { RunDirError } from "../engine/run-dir-error.js";
import type { EventLogCorruptError, EventLogLostError, EventLogWriteError, LogRepairError, RunLockedError } from "../events/event-log-errors.js";
import type { BenchSelectorError, TaskModuleError, TaskNotFoundError } from "../tasks/task-errors.js";
import type { SandboxSettingError } from "../../adapters/sandbox/sandbox-mode.js";
import { escapeControls } from "../codec/control-chars.js";
import type { UsageError } from "./args.js";
import type { RunQueryError } from "./run-log.js";

export type UserError =
  | UsageError
  | ConfigError
  | BenchSelectorError
  | RunDirError
  | RunLockedError
  | EventLogWriteError
  | EventLogCorruptError
  | EventLogLostError
  | LogRepairError
  | RunQueryError
  | SandboxSettingError
  | TaskModuleError
  | TaskNotFoundError;

export interface UserErrorExit {
  /** Printed to stderr, one per line, escaped (a config's task ids and keys are echoed, and may hold escape sequences). */
  readonly lines: readonly string[];
  readonly exitCode: number;
}

/** Usage, config and environment errors all exit 2 (the help text's table). */
const USER_ERROR_EXIT = 2;

/** Each member of the union, by tag: its exit code (the compiler holds this table to the union: a new member needs its entry). */
const EXIT_CODES: { readonly [Tag in UserError["_tag"]]: number } = {
  UsageError: USER_ERROR_EXIT,
  ConfigError: USER_ERROR_EXIT,
  BenchSelectorError: USER_ERROR_EXIT,
  RunDirError: USER_ERROR_EXIT,
  RunLockedError: USER_ERROR_EXIT,
  EventLogWriteError: USER_ERROR_EXIT,
  EventLogCorruptError: USER_ERROR_EXIT,
  EventLogLostError: USER_ERROR_EXIT,
  LogRepairError: USER_ERROR_EXIT,
  RunQueryError: USER_ERROR_EXIT,
  SandboxSettingError: USER_ERROR_EXIT,
  TaskModuleError: USER_ERROR_EXIT,
  TaskNotFoundError: USER_ERROR_EXIT,
};

function isUserError(error: unknown): error is UserError {
  const tag = typeof error === "object" && error !== null && "_tag" in error ? error._tag : undefined;
  return typeof tag === "string" && Object.hasOwn(EXIT_CODES, tag);
}

/** Its lines: a config error lists every problem found, one a line; the others say their one message. */
function linesOf(error: UserError): string[] {
  if (error._tag === "ConfigError") return error.problems.map((p) => `trace-bench: config error: ${escapeControls(p)}`);
  return [`trace-bench: ${error.message.split("\n").map(escapeControls).join("\n")}`];
}

/** What the edge prints and returns for `error`, or undefined when it is not the user's to fix. */
export function userErrorExit(error: unknown): UserErrorExit | undefined {
  if (!isUserError(error)) return undefined;
  return { lines: linesOf(error), exitCode: EXIT_CODES[error._tag] };
}
