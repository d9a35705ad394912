/**
 * Pools of the one-request-at-a-time python3 workers built on `sandbox_worker.py` (hf's code
 * worker, the PAL worker, the python agent worker): the worker's own folder and the LLM4AD
 * worker's folder (`sandbox_worker.py` and the sandbox helpers it imports, `--shared-dir`) bound
 * read-only, plus whatever else the worker names.
 */
import { join } from "node:path";
import { packageRoot } from "../../src/fs/package-root.js";
import type { ReadOnlyPath } from "./bubblewrap.js";
import { pythonWorkerPool, type PythonWorkerPool } from "./python-sandbox.js";

const SHARED_INSIDE = "/trace-bench/llm4ad";

export interface RequestWorkerSpec {
  /** The worker's folder on this machine, and where the sandbox sees it. */
  readonly folder: { readonly host: string; readonly inside: string };
  /** The worker script's file name in its folder. */
  readonly script: string;
  readonly size: number;
  /** Arguments of the worker's own, as the sandbox (or not) sees paths. */
  readonly extraArgs?: (sandboxed: boolean) => readonly string[];
  readonly extraReadOnly?: readonly ReadOnlyPath[];
}

/** Throws WorkerFailure `unavailable` when python3 or the sandbox cannot run here. */
export function requestWorkerPool(spec: RequestWorkerSpec): PythonWorkerPool {
  const shared = join(packageRoot(), "adapters", "tasks", "llm4ad", "python");
  return pythonWorkerPool({
    script: (inside) => join(inside ? spec.folder.inside : spec.folder.host, spec.script),
    scriptArgs: (inside) => ["--shared-dir", inside ? SHARED_INSIDE : shared, ...(spec.extraArgs?.(inside) ?? [])],
    readOnly: [spec.folder, { host: shared, inside: SHARED_INSIDE }, ...(spec.extraReadOnly ?? [])],
    env: () => ({}),
    size: spec.size,
  });
}
