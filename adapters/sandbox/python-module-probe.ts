/**
 * Whether the python3 on PATH can import a module (Python's `dspy` for framework dspy), asked of
 * python3 itself once per process and module. Installed packages only: no candidate code runs.
 */
import { spawnSync } from "node:child_process";

const known = new Map<string, string | null>();

/** Null when `import <module>` works, else why not (one line: the interpreter's own last line). */
export function pythonImportProblem(module: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const key = `${module}\0${env.PATH ?? ""}\0${env.PYTHONPATH ?? ""}`;
  if (known.has(key)) return known.get(key)!;
  const result = spawnSync("python3", ["-c", `import ${module}`], { encoding: "utf8", timeout: 60_000, env });
  let problem: string | null = null;
  if (result.error) problem = (result.error as NodeJS.ErrnoException).code === "ENOENT" ? "python3 was not found on PATH" : result.error.message;
  else if (result.status !== 0) problem = result.stderr.trim().split("\n").at(-1) ?? `python3 exited with ${String(result.status)}`;
  known.set(key, problem);
  return problem;
}
