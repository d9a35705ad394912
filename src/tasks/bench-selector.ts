/** `--bench` (spec §1.2): suite names joined by `,` or `+`; none given = every suite but the opt-in ones. */
import { BenchSelectorError } from "./task-errors.js";
import { SUITE_NAMES, type SuiteName } from "./task-suite.js";

/** Suites that run only when asked for by name (Terminal-Bench needs Harbor and containers, KernelBench a GPU server). */
export const OPT_IN_SUITES: readonly SuiteName[] = ["terminal_bench", "kernelbench"];

/** The selected suites, in `known` order; `known` defaults to the built-in suites. */
export function parseBenchSelector(selector: string | undefined, known: readonly string[] = SUITE_NAMES): string[] {
  const parts = (selector ?? "")
    .split(/[,+]/)
    .map((p) => p.trim())
    .filter((p) => p !== "");
  if (parts.length === 0) return known.filter((s) => !(OPT_IN_SUITES as readonly string[]).includes(s));
  const unknown = parts.filter((p) => !known.includes(p));
  if (unknown.length > 0) throw new BenchSelectorError({ unknown, allowed: known });
  return known.filter((s) => parts.includes(s));
}
