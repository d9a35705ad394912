/** `--bench` (spec §1.2): suite names joined by `,` or `+`; none given = every suite but the opt-in ones. */
import { BenchSelectorError } from "./task-errors.js";
import { SUITE_NAMES, type SuiteName } from "./task-suite.js";

/** Suites that run only when asked for by name (Terminal-Bench needs Harbor and containers). */
export const OPT_IN_SUITES: readonly SuiteName[] = ["terminal_bench"];

export function parseBenchSelector(selector: string | undefined): SuiteName[] {
  const parts = (selector ?? "")
    .split(/[,+]/)
    .map((p) => p.trim())
    .filter((p) => p !== "");
  if (parts.length === 0) return SUITE_NAMES.filter((s) => !OPT_IN_SUITES.includes(s));
  const unknown = parts.filter((p) => !(SUITE_NAMES as readonly string[]).includes(p));
  if (unknown.length > 0) throw new BenchSelectorError({ unknown, allowed: SUITE_NAMES });
  return SUITE_NAMES.filter((s) => parts.includes(s));
}
