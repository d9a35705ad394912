/**
 * The environment `harbor` runs with, built from an allowlist (as sandbox-env.ts builds a
 * candidate's): the engine's LLM key never reaches Harbor, whatever its variable is called.
 *
 * Harbor's own LLM calls (LiteLLM) go to the job's loopback audit endpoint (`context.llm.endpoint()`):
 * recorded, journaled and budgeted like the agent's own calls, with the job's secret as the key.
 * Where the engine serves no endpoint Harbor is given no LLM settings (it then has only what
 * `harbor_extra_env` sets explicitly).
 */
import type { TaskCallContext } from "../../../src/domain/task-call-context.js";

/** Variables Harbor needs to run at all (a Python CLI driving Docker), copied when set. */
const PASSED_THROUGH = ["PATH", "HOME", "USER", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "DOCKER_HOST", "DOCKER_CONFIG", "DOCKER_CONTEXT"] as const;

/** The Daytona sandbox provider's settings, copied only for `--env daytona` (its key is the sandbox's, not an LLM's). */
const DAYTONA = ["DAYTONA_API_KEY", "DAYTONA_API_URL", "DAYTONA_TARGET"] as const;

export interface LlmEndpoint {
  readonly baseUrl: string;
  readonly apiKey: string;
}

/** The job's loopback endpoint for Harbor's calls, or null where the engine serves none. */
export async function harborEndpoint(context: TaskCallContext): Promise<LlmEndpoint | null> {
  const endpoint = await context.llm?.endpoint?.();
  return endpoint === undefined ? null : { baseUrl: endpoint.baseUrl, apiKey: endpoint.apiKey };
}

/** The variables that send Harbor's LLM calls (LiteLLM, OpenAI-compatible) to `endpoint`. */
export function harborLlmEnv(endpoint: LlmEndpoint | null): Record<string, string> {
  if (endpoint === null) return {};
  // LiteLLM reads OPENAI_API_BASE / OPENAI_BASE_URL for openai/* models; the openai client reads OPENAI_BASE_URL.
  return { OPENAI_BASE_URL: endpoint.baseUrl, OPENAI_API_BASE: endpoint.baseUrl, OPENAI_API_KEY: endpoint.apiKey };
}

export interface HarborEnvOptions {
  readonly sandbox: string;
  /** Where the agent module Harbor imports lives (prepended to PYTHONPATH). */
  readonly agentDir: string;
  readonly endpoint: LlmEndpoint | null;
  /** `eval_kwargs.harbor_extra_env`: set as given (the user's explicit choice). */
  readonly extra: Readonly<Record<string, string>>;
}

export function harborEnv(parent: NodeJS.ProcessEnv, options: HarborEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  const names: readonly string[] = options.sandbox === "daytona" ? [...PASSED_THROUGH, ...DAYTONA] : PASSED_THROUGH;
  for (const name of names) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  const pythonPath = [options.agentDir, parent.PYTHONPATH].filter((p) => p !== undefined && p !== "").join(":");
  return { ...env, PYTHONPATH: pythonPath, ...harborLlmEnv(options.endpoint), ...options.extra };
}
