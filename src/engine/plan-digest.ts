/**
 * A digest of everything an invocation's `RunStarted` records that its plan decides: the config
 * (hash, snapshot and its YAML, name), how it executes (mode, workers, timeout, resume mode,
 * fail-fast, tags), the LLM it names and every job of the matrix. Two invocations with the same
 * digest would record the same start but for what each invocation records of itself (its number,
 * its environment and git commit, its preflight request). A re-run with nothing to do is answered
 * from the finished run's record only when its plan's digest is the recorded one.
 */
import { createHash } from "node:crypto";
import type { JobSpec } from "../config/matrix.js";
import { sanitize } from "../events/projections/artifact-format.js";
import type { RunPlan } from "./run-plan.js";

/**
 * The matrix's part: each job's identity, and its params and resolved kwargs, which a cell's
 * seeds share (each distinct object is serialized once: a 50,000-seed matrix has one cell).
 */
function hashMatrix(hash: ReturnType<typeof createHash>, jobs: readonly JobSpec[]): void {
  const cells = new Map<object, number>();
  const cellOf = (value: object): number => {
    let n = cells.get(value);
    if (n === undefined) {
      n = cells.size;
      cells.set(value, n);
      hash.update(`cell ${n} ${JSON.stringify(sanitize(value))}\n`);
    }
    return n;
  };
  for (const job of jobs) {
    const params = cellOf(job.raw_params);
    const resolved = cellOf(job.resolved_kwargs);
    hash.update(`${JSON.stringify([job.job_id, job.task_id, job.suite, job.trainer_id, job.seed, job.llm_model ?? null, params, resolved])}\n`);
  }
}

/** sha256 of the plan's start (`planned`: RunStarted's fields the plan decides, without the matrix) and matrix. */
export function planDigest(plan: Pick<RunPlan, "jobs">, planned: unknown): string {
  const hash = createHash("sha256");
  hash.update(`${JSON.stringify(planned)}\n`);
  hashMatrix(hash, plan.jobs);
  return hash.digest("hex");
}

export { codeIdentity } from "./code-identity.js";
