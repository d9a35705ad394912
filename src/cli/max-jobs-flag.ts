/** `--max-jobs N` (run, validate): raises the limit on a matrix's size (src/config/matrix-size.ts). */
import type { FlagSpec, ParsedArgs } from "./args.js";
import { UsageError } from "./args.js";
import { DEFAULT_MAX_JOBS } from "../config/matrix-size.js";

export const MAX_JOBS_FLAG: FlagSpec = {
  type: "string",
  value: "N",
  description: `The most jobs the matrix may have (default ${DEFAULT_MAX_JOBS.toLocaleString("en-US")}); a bigger matrix is refused before any job is expanded.`,
};

/** The flag's value, or the default; a value that is not a whole number ≥ 1 is a usage error. */
export function maxJobsOf(args: ParsedArgs, verb: string): number {
  const raw = args.flags["max-jobs"];
  if (raw === undefined) return DEFAULT_MAX_JOBS;
  const value = Number(raw);
  if (typeof raw !== "string" || !/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < 1) {
    throw new UsageError({ verb, problem: `--max-jobs must be a whole number ≥ 1, got '${String(raw)}'` });
  }
  return value;
}
