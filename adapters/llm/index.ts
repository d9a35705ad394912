/** Which LLM a run's jobs use: the seeded stub in mode stub, an OpenAI-compatible server in mode real. */
import { ConfigError } from "../../src/config/config-error.js";
import type { JobSpec } from "../../src/config/matrix.js";
import type { RunConfig } from "../../src/config/run-config.js";
import type { TaskBundle } from "../../src/domain/task-bundle.js";
import type { Llm } from "../../src/llm/llm.js";
import { apiKeyFor, missingApiKeys, resolveLlmRoles } from "../../src/llm/llm-roles.js";
import { createRequestLimiters, type RequestLimiterOptions } from "../../src/llm/request-limiter.js";
import { BUILTIN_STUB_ALTERNATIVES } from "../tasks/stub-alternatives.js";
import { createOpenAiLlm, type OpenAiLlmOptions } from "./openai-llm.js";
import { createStubLlm } from "./stub-llm.js";

/** The optimizer's endpoint in mode real, with its key, from the llm block, its roles and the environment (spec §8.1). */
export function realLlmSettings(config: RunConfig, env: NodeJS.ProcessEnv) {
  const roles = resolveLlmRoles(config.llm, env);
  const endpoint = roles.optimizer;
  const apiKey = apiKeyFor(endpoint, env);
  if (apiKey === undefined) throw new ConfigError({ problems: missingApiKeys({ optimizer: endpoint, agent: endpoint }, env) });
  return { apiKey, model: endpoint.model, ...(endpoint.baseURL ? { baseURL: endpoint.baseURL } : {}), endpoint };
}

/** How mode real talks to the server: per-attempt timeout, retries, and the run's request limits per model. */
export interface LlmFactoryOptions extends Pick<OpenAiLlmOptions, "timeoutMs" | "maxRetries" | "backoffBaseMs" | "backoffMaxMs"> {
  /** Default: the optimizer endpoint's max_concurrency and requests_per_minute. */
  readonly limits?: RequestLimiterOptions;
}

/**
 * Called once per run. In mode real every job shares one client and one request limiter per model,
 * so parallel jobs together keep to `options.limits`.
 */
export function llmFactory(config: RunConfig, env: NodeJS.ProcessEnv = process.env, options: LlmFactoryOptions = {}): (job: JobSpec, bundle?: TaskBundle) => Llm {
  if (config.mode === "stub") return (job, bundle) => createStubLlm(job.seed, { ...BUILTIN_STUB_ALTERNATIVES, ...bundle?.stubAlternatives });
  const { apiKey, model, baseURL, endpoint } = realLlmSettings(config, env);
  const limits = options.limits ?? { maxConcurrency: endpoint.maxConcurrency, ...(endpoint.requestsPerMinute !== null ? { requestsPerMinute: endpoint.requestsPerMinute } : {}) };
  const limiters = createRequestLimiters(() => limits);
  const llm = createOpenAiLlm({
    timeoutMs: endpoint.timeoutMs,
    maxRetries: endpoint.maxRetries,
    ...options,
    apiKey,
    model,
    ...(baseURL ? { baseURL } : {}),
    limiter: limiters.forModel(model),
  });
  return () => llm;
}
