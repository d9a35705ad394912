/** Which LLM a run's jobs use: the seeded stub in mode stub, an OpenAI-compatible server in mode real. */
import { ConfigError } from "../../src/config/config-error.js";
import type { JobSpec } from "../../src/config/matrix.js";
import type { RunConfig } from "../../src/config/run-config.js";
import type { TaskBundle } from "../../src/domain/task-bundle.js";
import type { Llm } from "../../src/llm/llm.js";
import { llmForModel, modelAxis } from "../../src/config/model-axis.js";
import { apiKeyFor, missingApiKeys, resolveLlmRoles } from "../../src/llm/llm-roles.js";
import { createRequestLimiters, type RequestLimiterOptions } from "../../src/llm/request-limiter.js";
import { BUILTIN_STUB_ALTERNATIVES } from "../tasks/stub-alternatives.js";
import type { OpenAiLlmOptions } from "./openai-llm.js";
import { createStubLlm } from "./stub-llm.js";

/**
 * The optimizer's endpoint in mode real, with its key, from the llm block, its roles and the
 * environment (spec §8.1); `model`: one model of the config's list (default: its first).
 */
export function realLlmSettings(config: Pick<RunConfig, "llm">, env: NodeJS.ProcessEnv, model?: string) {
  const roles = resolveLlmRoles(llmForModel(config.llm, model), env);
  const endpoint = roles.optimizer;
  const apiKey = apiKeyFor(endpoint, env);
  if (apiKey === undefined) throw new ConfigError({ problems: missingApiKeys({ optimizer: endpoint, agent: endpoint, guide: endpoint }, env) });
  return { apiKey, model: endpoint.model, ...(endpoint.baseURL ? { baseURL: endpoint.baseURL } : {}), endpoint };
}

/** How mode real talks to the server: per-attempt timeout, retries, and the run's request limits per model. */
export interface LlmFactoryOptions extends Pick<OpenAiLlmOptions, "timeoutMs" | "maxRetries" | "backoffBaseMs" | "backoffMaxMs"> {
  /** Default: the optimizer endpoint's max_concurrency and requests_per_minute. */
  readonly limits?: RequestLimiterOptions;
}

/**
 * Called once per run. In mode real every job of one model shares one client and one request
 * limiter, so parallel jobs together keep to `options.limits`; each job calls its own model (the
 * config's, or the job's of a model list). The OpenAI client (the `openai` package, ~150 modules)
 * is loaded only here, in mode real: a stub run never pays for it.
 */
export async function llmFactory(config: RunConfig, env: NodeJS.ProcessEnv = process.env, options: LlmFactoryOptions = {}): Promise<(job: Pick<JobSpec, "seed" | "llm_model">, bundle?: TaskBundle) => Llm> {
  if (config.mode === "stub") return (job, bundle) => createStubLlm(job.seed, { ...BUILTIN_STUB_ALTERNATIVES, ...bundle?.stubAlternatives });
  const { createOpenAiLlm } = await import("./openai-llm.js");
  const clientFor = (listed: string | undefined): Llm => {
    const { apiKey, model, baseURL, endpoint } = realLlmSettings(config, env, listed);
    limitsOf.set(model, options.limits ?? { maxConcurrency: endpoint.maxConcurrency, ...(endpoint.requestsPerMinute !== null ? { requestsPerMinute: endpoint.requestsPerMinute } : {}) });
    return createOpenAiLlm({
      timeoutMs: endpoint.timeoutMs,
      maxRetries: endpoint.maxRetries,
      ...options,
      apiKey,
      model,
      ...(baseURL ? { baseURL } : {}),
      limiter: limiters.forModel(model),
    });
  };
  const limitsOf = new Map<string, RequestLimiterOptions>();
  const limiters = createRequestLimiters((model) => limitsOf.get(model) ?? {});
  const clients = new Map<string | undefined, Llm>();
  // Built now, so a missing key is reported before the run starts.
  for (const model of modelAxis(config.llm).length > 0 ? modelAxis(config.llm) : [undefined]) clients.set(model, clientFor(model));
  return (job) => {
    const client = clients.get(job.llm_model);
    if (client === undefined) throw new Error(`no LLM client for model ${String(job.llm_model)}: the job is not of this config's matrix`);
    return client;
  };
}
