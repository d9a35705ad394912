/**
 * The size of a job matrix, counted from its axes before any job is expanded: expanding hashes
 * every job and `RunStarted` records them all, so a small config that multiplies out to millions
 * of jobs would take minutes and gigabytes before anything ran. A run over the limit is refused
 * with the count and the flag that raises the limit.
 */
import { modelAxis } from "./model-axis.js";
import type { RunConfig } from "./run-config.js";

/** The most jobs a run's matrix may have unless `--max-jobs` says more. */
export const DEFAULT_MAX_JOBS = 100_000;

export interface MatrixSize {
  readonly jobs: number;
  /** The axes multiplied, as users read them: `1 task × 64 trainer variants × 20,000 seeds`. */
  readonly axes: string;
}

const counted = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

/** How many jobs `expandMatrix(config)` makes (a trainer without params variants runs once). */
export function matrixSize(config: Pick<RunConfig, "tasks" | "trainers" | "seeds" | "llm">): MatrixSize {
  const variants = config.trainers.reduce((sum, trainer) => sum + Math.max(trainer.params_variants.length, 1), 0);
  const models = modelAxis(config.llm).length;
  const axes = [counted(config.tasks.length, "task"), counted(variants, "trainer variant"), ...(models > 0 ? [counted(models, "model")] : []), counted(config.seeds.length, "seed")];
  return { jobs: config.tasks.length * variants * Math.max(models, 1) * config.seeds.length, axes: axes.join(" × ") };
}

/** The problem with a matrix over `maxJobs`, or null. */
export function matrixLimitProblem(size: MatrixSize, maxJobs: number): string | null {
  if (size.jobs <= maxJobs) return null;
  return `matrix: ${counted(size.jobs, "job")} (${size.axes}) is over the limit of ${counted(maxJobs, "job")}; pass --max-jobs ${size.jobs} to run them all, or make the matrix smaller`;
}
