/** The `harbor run` argument list, in the original's order (reference suites.md §4.4). */

export const DEFAULT_HARBOR_DATASET = "terminal-bench@2.0";
/** The agent Harbor imports: python/trace_bench_terminus2.py, on the PYTHONPATH given to Harbor. */
export const AGENT_IMPORT_PATH = "trace_bench_terminus2:TraceBenchTerminus2";

export interface HarborRunRequest {
  readonly jobName: string;
  readonly jobsDir: string;
  readonly model: string;
  readonly env: string;
  readonly taskName: string;
  /** Exactly one of `dataset` and `taskPath`. */
  readonly dataset?: string;
  readonly taskPath?: string;
  readonly agentName?: string;
  readonly agentImportPath?: string;
  readonly agentKwargs?: Readonly<Record<string, unknown>>;
  readonly quiet?: boolean;
}

/** An agent kwarg's value as Python's `str()` writes the scalars a config holds. */
function pythonStr(value: unknown): string {
  if (value === true) return "True";
  if (value === false) return "False";
  if (value === null || value === undefined) return "None";
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : JSON.stringify(value);
}

export function harborArgs(request: HarborRunRequest): string[] {
  if ((request.dataset === undefined) === (request.taskPath === undefined)) throw new Error("a Harbor run needs exactly one of a dataset and a task path");
  const args = ["run", "--job-name", request.jobName, "--jobs-dir", request.jobsDir];
  if (request.taskPath !== undefined) args.push("--path", request.taskPath);
  else args.push("--dataset", request.dataset!, "--task-name", request.taskName, "--n-tasks", "1");
  if (request.agentName !== undefined) args.push("--agent", request.agentName);
  args.push("--model", request.model);
  const importPath = request.agentImportPath ?? AGENT_IMPORT_PATH;
  if (importPath !== "") args.push("--agent-import-path", importPath);
  for (const [key, value] of Object.entries(request.agentKwargs ?? {})) args.push("--agent-kwarg", `${key}=${pythonStr(value)}`);
  args.push("--env", request.env, "--n-concurrent", "1");
  if (request.quiet !== false) args.push("--quiet");
  return args;
}
