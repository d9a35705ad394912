/**
 * `--bench` (spec §1.2): suite names joined by `,` or `+`. For discovery (`list-tasks`), none
 * given = every suite but the opt-in ones; for a config's own tasks (`validate`, `run`), none
 * given = every suite, the opt-in ones included, as the original keeps them.
 */
import { BenchSelectorError } from "./task-errors.js";
import { SUITE_NAMES, type SuiteName } from "./task-suite.js";

/** Suites that `list-tasks` lists only when asked for by name (Terminal-Bench needs Harbor and containers, KernelBench a GPU server). */
export const OPT_IN_SUITES: readonly SuiteName[] = ["terminal_bench", "kernelbench"];

function selectorParts(selector: string | undefined): string[] {
  return (selector ?? "")
    .split(/[,+]/)
    .map((p) => p.trim())
    .filter((p) => p !== "");
}

function named(parts: readonly string[], known: readonly string[]): string[] {
  const unknown = parts.filter((p) => !known.includes(p));
  if (unknown.length > 0) throw new BenchSelectorError({ unknown, allowed: known });
  return known.filter((s) => parts.includes(s));
}

/** The suites to discover tasks in, in `known` order; `known` defaults to the built-in suites. */
export function parseBenchSelector(selector: string | undefined, known: readonly string[] = SUITE_NAMES): string[] {
  const parts = selectorParts(selector);
  if (parts.length === 0) return known.filter((s) => !(OPT_IN_SUITES as readonly string[]).includes(s));
  return named(parts, known);
}

/**
 * The suites whose tasks of a config are kept: null without a selector (every task, opt-in suites
 * and unknown ones too, which are then reported as such), else those named.
 */
export function configSuiteSelection(selector: string | undefined, known: readonly string[] = SUITE_NAMES): string[] | null {
  const parts = selectorParts(selector);
  return parts.length === 0 ? null : named(parts, known);
}
