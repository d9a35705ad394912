/**
 * The python3 a sandbox runs: the real interpreter behind `python3` on PATH (a pyenv shim is a
 * shell script that would need the user's home), and the folders it imports from, which the
 * sandbox shows read-only. Asked of python3 itself, once per process.
 */
import { spawnSync } from "node:child_process";
import { WorkerFailure } from "./worker-failure.js";

export interface PythonRuntime {
  readonly executable: string;
  /** Its installation (prefix, base prefix) and every folder on its sys.path, in order. */
  readonly folders: readonly string[];
  /** The sys.path folders, for PYTHONPATH (a sandbox's HOME is not the user's: no user site otherwise). */
  readonly importPath: readonly string[];
}

const QUESTION =
  "import json, os, sys; print(json.dumps({'executable': os.path.realpath(sys.executable), 'prefixes': [sys.prefix, sys.base_prefix, sys.exec_prefix], 'path': [p for p in sys.path if p and os.path.isdir(p)]}))";

let known: PythonRuntime | undefined;

/** Throws a WorkerFailure of kind `unavailable` when python3 cannot be run. */
export function pythonRuntime(): PythonRuntime {
  if (known !== undefined) return known;
  const result = spawnSync("python3", ["-c", QUESTION], { encoding: "utf8", timeout: 30_000 });
  if (result.error || result.status !== 0) {
    const why = result.error ? ((result.error as NodeJS.ErrnoException).code === "ENOENT" ? "python3 was not found on PATH" : result.error.message) : (result.stderr.trim().split("\n").at(-1) ?? `exit ${String(result.status)}`);
    throw new WorkerFailure("unavailable", why);
  }
  const answer = JSON.parse(result.stdout) as { executable: string; prefixes: string[]; path: string[] };
  known = { executable: answer.executable, folders: [...new Set([...answer.prefixes, ...answer.path])], importPath: answer.path };
  return known;
}
