/** Which LLM a run's jobs use: the seeded stub in mode stub, an OpenAI-compatible server in mode real. */
import { ConfigError } from "../../src/config/config-error.js";
import type { JobSpec } from "../../src/config/matrix.js";
import type { RunConfig } from "../../src/config/run-config.js";
import type { TaskBundle } from "../../src/domain/task-bundle.js";
import type { TaskLlmRole } from "../../src/domain/task-llm.js";
import type { Embedder, Llm } from "../../src/llm/llm.js";
import { llmForModel, modelAxis } from "../../src/config/model-axis.js";
import { apiKeyFor, missingApiKeys, resolveEmbeddingEndpoint, resolveLlmRoles, type LlmEndpoint, type LlmEndpointRole } from "../../src/llm/llm-roles.js";
import { createRequestLimiters, type RequestLimiterOptions } from "../../src/llm/request-limiter.js";
import { BUILTIN_STUB_ALTERNATIVES } from "../tasks/stub-alternatives.js";
import type { OpenAiLlmOptions } from "./openai-llm.js";
import { createStubEmbedder } from "./stub-embedder.js";
import { createStubLlm } from "./stub-llm.js";
import { createStubTaskLlm } from "./stub-task-llm.js";

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
  /** Workers of `--executor bullmq`: each model's limits are held together with every other worker's, in this Redis. */
  readonly sharedLimits?: { readonly redisUrl: string; readonly prefix: string };
}

/** Which endpoint (llm.<role>) a task's call goes to: judges are guides; a summarizer works for the optimizer. */
const ENDPOINT_OF_TASK_ROLE: Readonly<Record<TaskLlmRole, LlmEndpointRole>> = { agent: "agent", guide: "guide", judge: "guide", summarizer: "optimizer" };

type LlmJob = Pick<JobSpec, "seed" | "llm_model">;

/** The LLMs of a run's jobs: the optimizer's, and the one each task role calls. */
export interface LlmClients {
  readonly forJob: (job: LlmJob, bundle?: TaskBundle) => Llm;
  readonly forTask: (job: LlmJob, role: TaskLlmRole) => Llm;
  /** Embeddings (POLCA) with `model` (a trainer's embedding_model), else llm.embedding's model, else the default. */
  readonly forEmbedding: (job: LlmJob, model?: string) => Embedder;
  /** Task calls are answered by the stub (mode stub). */
  readonly stubAnswers: boolean;
  /** Closes what the clients hold open (the shared limiters' Redis connections); absent: nothing to close. */
  readonly close?: () => Promise<void>;
}

/**
 * Called once per run. In mode real every job of one model shares one client and one request
 * limiter, so parallel jobs together keep to `options.limits`; each job calls its own model (the
 * config's, or the job's of a model list). A task's agent and guide call their role's endpoint
 * (llm.agent, llm.guide), through the same limiter per model as the optimizer. The OpenAI client
 * (the `openai` package, ~150 modules) is loaded only here, in mode real: a stub run never pays for it.
 */
export async function llmClients(config: RunConfig, env: NodeJS.ProcessEnv = process.env, options: LlmFactoryOptions = {}): Promise<LlmClients> {
  if (config.mode === "stub") {
    return {
      forJob: (job, bundle) => createStubLlm(job.seed, { ...BUILTIN_STUB_ALTERNATIVES, ...bundle?.stubAlternatives }),
      forTask: (job) => createStubTaskLlm(job.seed),
      forEmbedding: () => createStubEmbedder(),
      stubAnswers: true,
    };
  }
  const { createOpenAiLlm } = await import("./openai-llm.js");
  const { createOpenAiEmbedder } = await import("./openai-embedder.js");
  const limitsOf = new Map<string, RequestLimiterOptions>();
  const optionsFor = (model: string) => limitsOf.get(model) ?? {};
  const shared = options.sharedLimits;
  const sharedLimiters = shared === undefined ? null : await (await import("./redis-request-limiter.js")).connectRedisRequestLimiters({ url: shared.redisUrl, prefix: shared.prefix, optionsFor });
  const limiters = sharedLimiters ?? createRequestLimiters(optionsFor);
  const connect = (endpoint: LlmEndpoint, apiKey: string): Llm => {
    const model = endpoint.model;
    // The first role to call a model sets its limits; every role then shares them.
    if (!limitsOf.has(model)) limitsOf.set(model, options.limits ?? { maxConcurrency: endpoint.maxConcurrency, ...(endpoint.requestsPerMinute !== null ? { requestsPerMinute: endpoint.requestsPerMinute } : {}) });
    return createOpenAiLlm({
      timeoutMs: endpoint.timeoutMs,
      maxRetries: endpoint.maxRetries,
      ...options,
      apiKey,
      model,
      ...(endpoint.baseURL ? { baseURL: endpoint.baseURL } : {}),
      limiter: limiters.forModel(model),
    });
  };
  const clients = new Map<string | undefined, Llm>();
  // Built now, so a missing key is reported before the run starts.
  try {
    for (const model of modelAxis(config.llm).length > 0 ? modelAxis(config.llm) : [undefined]) {
      const { apiKey, endpoint } = realLlmSettings(config, env, model);
      clients.set(model, connect(endpoint, apiKey));
    }
  } catch (error) {
    // The caller gets no `close`: the shared limiters' connections are ended here.
    await sharedLimiters?.close().catch(() => {});
    throw error;
  }
  const taskClients = new Map<string, Llm>();
  const embedders = new Map<string, Embedder>();
  return {
    forJob: (job) => {
      const client = clients.get(job.llm_model);
      if (client === undefined) throw new Error(`no LLM client for model ${String(job.llm_model)}: the job is not of this config's matrix`);
      return client;
    },
    // Built on a task's first call: a task that calls no LLM needs no agent or guide key.
    forTask: (job, role) => {
      const endpointRole = ENDPOINT_OF_TASK_ROLE[role];
      const endpoint = resolveLlmRoles(llmForModel(config.llm, job.llm_model), env)[endpointRole];
      const key = JSON.stringify([endpointRole, endpoint.model, endpoint.baseURL ?? null, endpoint.apiKeyEnv]);
      let client = taskClients.get(key);
      if (client === undefined) {
        const apiKey = apiKeyFor(endpoint, env);
        if (apiKey === undefined) {
          const fix = `llm.${endpointRole}.api_key_env`;
          throw new Error(`${fix}: the task's ${role} calls an LLM and mode real needs an API key in the environment variable ${endpoint.apiKeyEnv}; set it, or name another variable with ${fix}`);
        }
        client = connect(endpoint, apiKey);
        taskClients.set(key, client);
      }
      return client;
    },
    // Built on the first embedding: only POLCA's jobs need the embedding endpoint's key.
    forEmbedding: (job, model) => {
      const endpoint = resolveEmbeddingEndpoint(llmForModel(config.llm, job.llm_model), env, model);
      const key = JSON.stringify([endpoint.model, endpoint.baseURL ?? null, endpoint.apiKeyEnv]);
      let embedder = embedders.get(key);
      if (embedder === undefined) {
        const apiKey = apiKeyFor(endpoint, env);
        if (apiKey === undefined) {
          throw new Error(`llm.embedding.api_key_env: embeddings need an API key in the environment variable ${endpoint.apiKeyEnv} in mode real; set it, or name another variable with llm.embedding.api_key_env`);
        }
        if (!limitsOf.has(endpoint.model)) limitsOf.set(endpoint.model, options.limits ?? { maxConcurrency: endpoint.maxConcurrency, ...(endpoint.requestsPerMinute !== null ? { requestsPerMinute: endpoint.requestsPerMinute } : {}) });
        embedder = createOpenAiEmbedder({
          timeoutMs: endpoint.timeoutMs,
          maxRetries: endpoint.maxRetries,
          ...options,
          apiKey,
          model: endpoint.model,
          ...(endpoint.baseURL ? { baseURL: endpoint.baseURL } : {}),
          limiter: limiters.forModel(endpoint.model),
        });
        embedders.set(key, embedder);
      }
      return embedder;
    },
    stubAnswers: false,
    ...(sharedLimiters !== null ? { close: () => sharedLimiters.close() } : {}),
  };
}

/** The optimizer's LLM of each job (see llmClients). */
export async function llmFactory(config: RunConfig, env: NodeJS.ProcessEnv = process.env, options: LlmFactoryOptions = {}): Promise<(job: LlmJob, bundle?: TaskBundle) => Llm> {
  return (await llmClients(config, env, options)).forJob;
}
