/** Which LLM a run's jobs use: the seeded stub in mode stub, an OpenAI-compatible server in mode real. */
import { ConfigError } from "../../src/config/config-error.js";
import type { JobSpec } from "../../src/config/matrix.js";
import type { RunConfig } from "../../src/config/run-config.js";
import type { Llm } from "../../src/llm/llm.js";
import { createRequestLimiters, type RequestLimiterOptions } from "../../src/llm/request-limiter.js";
import { BUILTIN_STUB_ALTERNATIVES } from "../tasks/stub-alternatives.js";
import { createOpenAiLlm, type OpenAiLlmOptions } from "./openai-llm.js";
import { createStubLlm } from "./stub-llm.js";

/** The real LLM's settings from the config's llm block and the environment (spec §8.1). */
export function realLlmSettings(config: RunConfig, env: NodeJS.ProcessEnv) {
  const keyVariable = config.llm.api_key_env ?? (config.llm.provider === "openrouter" ? "OPENROUTER_API_KEY" : "OPENAI_API_KEY");
  const apiKey = env[keyVariable] ?? (keyVariable === "OPENROUTER_API_KEY" ? env.OPENAI_API_KEY : undefined);
  if (apiKey === undefined || apiKey === "") {
    throw new ConfigError({ problems: [`llm.api_key_env: mode real needs an API key in the environment variable ${keyVariable}; set it (a .env file works too), or name another variable with llm.api_key_env`] });
  }
  const baseURL = config.llm.base_url ?? config.llm.api_base ?? env.OPENAI_BASE_URL ?? env.OPENAI_API_BASE ?? (config.llm.provider === "openrouter" ? "https://openrouter.ai/api/v1" : undefined);
  const model = config.llm.model ?? env.TRACE_LITELLM_MODEL ?? env.DEFAULT_LITELLM_MODEL ?? "gpt-4o";
  return { apiKey, model, ...(baseURL ? { baseURL } : {}) };
}

/** How mode real talks to the server: per-attempt timeout, retries, and the run's request limits per model. */
export interface LlmFactoryOptions extends Pick<OpenAiLlmOptions, "timeoutMs" | "maxRetries" | "backoffBaseMs" | "backoffMaxMs"> {
  /** None until the config names some. */
  readonly limits?: RequestLimiterOptions;
}

/**
 * Called once per run. In mode real every job shares one client and one request limiter per model,
 * so parallel jobs together keep to `options.limits`.
 */
export function llmFactory(config: RunConfig, env: NodeJS.ProcessEnv = process.env, options: LlmFactoryOptions = {}): (job: JobSpec) => Llm {
  if (config.mode === "stub") return (job) => createStubLlm(job.seed, BUILTIN_STUB_ALTERNATIVES);
  const { limits = {}, ...http } = options;
  const settings = realLlmSettings(config, env);
  const limiters = createRequestLimiters(() => limits);
  const llm = createOpenAiLlm({ ...http, ...settings, limiter: limiters.forModel(settings.model) });
  return () => llm;
}
