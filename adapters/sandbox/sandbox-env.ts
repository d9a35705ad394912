/**
 * The environment candidate code runs with, built from an allowlist: nothing of the engine's
 * environment reaches it but the locale and two OpenBLAS settings some processors need to compute
 * correctly. An API key cannot leak whatever its variable is called (`MY_LLM_KEY`,
 * `AWS_SECRET_ACCESS_KEY`, a `DATABASE_URL` with its password), because no other name is copied.
 */

/** Variables copied from the engine's environment when set. */
const PASSED_THROUGH = ["LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_NUMERIC", "TZ", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"] as const;

/** One thread per numeric library: the pool's workers are the parallelism, and threads count as processes. */
const SINGLE_THREADED = { OPENBLAS_NUM_THREADS: "1", OMP_NUM_THREADS: "1", MKL_NUM_THREADS: "1" } as const;

export interface CandidateEnvOptions {
  /** The candidate's home and temporary folder (its scratch space). */
  readonly scratch: string;
  readonly path: string;
  /** Variables the task needs (data folders), set as given. */
  readonly extra?: Readonly<Record<string, string>>;
}

export function candidateEnv(parent: NodeJS.ProcessEnv, options: CandidateEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSED_THROUGH) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...SINGLE_THREADED, PATH: options.path, HOME: options.scratch, TMPDIR: options.scratch, PYTHONDONTWRITEBYTECODE: "1", ...options.extra };
}
