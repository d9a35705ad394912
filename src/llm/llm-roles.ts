/**
 * Which LLM endpoint each role (the optimizer, the agent, the guide) calls, and how: the config's
 * `llm` block gives the defaults of every role, `llm.optimizer` / `llm.agent` / `llm.guide`
 * override any key for one role, and what neither gives comes from the environment as in the original (spec §8.1).
 * Only the NAME of the key variable is resolved here; the key itself is read by `apiKeyFor`.
 *
 * A `RunConfig["llm"]` fits `LlmBlockSettings`.
 */
import type { LlmEndpointSettings } from "../domain/llm-endpoint-settings.js";

export interface LlmBlockSettings extends LlmEndpointSettings {
  readonly optimizer?: LlmEndpointSettings | null;
  readonly agent?: LlmEndpointSettings | null;
  readonly guide?: LlmEndpointSettings | null;
  /** Embeddings (POLCA's ε-net): its own model and endpoint; not a chat role, so resolved apart. */
  readonly embedding?: LlmEndpointSettings | null;
}

export interface LlmEndpoint {
  /** The configured provider; else "openrouter" for an openrouter.ai base URL; else "openai" (any OpenAI-compatible server). */
  readonly provider: string;
  readonly model: string;
  readonly baseURL?: string;
  /** The environment variable that holds the API key. */
  readonly apiKeyEnv: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  /** Requests in flight at once to this model, shared by all jobs. */
  readonly maxConcurrency: number;
  /** Requests started per minute to this model, shared by all jobs; null = no limit. */
  readonly requestsPerMinute: number | null;
}

export type LlmEndpointRole = "optimizer" | "agent" | "guide";
export type LlmRoles = Readonly<Record<LlmEndpointRole, LlmEndpoint>>;

export const LLM_ROLE_NAMES: readonly LlmEndpointRole[] = ["optimizer", "agent", "guide"];

export const LLM_DEFAULTS = { timeoutSeconds: 120, maxRetries: 5, maxConcurrency: 8, requestsPerMinute: null } as const;
export const DEFAULT_MODEL = "gpt-4o";
export const OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1";

type Env = Readonly<Record<string, string | undefined>>;

function resolveEndpoint(block: LlmBlockSettings, role: LlmEndpointSettings, env: Env): LlmEndpoint {
  // `??` (not `||`) throughout: the same fallbacks, empty strings included, as the single-LLM code had.
  const provider = role.provider ?? block.provider;
  const apiKeyEnv = role.api_key_env ?? block.api_key_env ?? (provider === "openrouter" ? "OPENROUTER_API_KEY" : "OPENAI_API_KEY");
  const baseURL =
    role.base_url ?? role.api_base ?? block.base_url ?? block.api_base ?? env.OPENAI_BASE_URL ?? env.OPENAI_API_BASE ?? (provider === "openrouter" ? OPENROUTER_BASE_URL : undefined);
  const model = role.model ?? block.model ?? env.TRACE_LITELLM_MODEL ?? env.DEFAULT_LITELLM_MODEL ?? DEFAULT_MODEL;
  const number = <K extends "timeout_seconds" | "max_retries" | "max_concurrency" | "requests_per_minute">(key: K, fallback: number | null) =>
    role[key] !== undefined ? role[key] : block[key] !== undefined ? block[key] : fallback;
  return {
    provider: provider ?? (baseURL?.includes("openrouter.ai") ? "openrouter" : "openai"),
    model,
    ...(baseURL ? { baseURL } : {}),
    apiKeyEnv,
    timeoutMs: Math.round(Number(number("timeout_seconds", LLM_DEFAULTS.timeoutSeconds)) * 1000),
    maxRetries: Number(number("max_retries", LLM_DEFAULTS.maxRetries)),
    maxConcurrency: Number(number("max_concurrency", LLM_DEFAULTS.maxConcurrency)),
    requestsPerMinute: number("requests_per_minute", LLM_DEFAULTS.requestsPerMinute) ?? null,
  };
}

/** Each role's endpoint: its overrides, else the llm block's keys, else the environment and defaults. */
export function resolveLlmRoles(llm: LlmBlockSettings, env: Env = process.env): LlmRoles {
  return {
    optimizer: resolveEndpoint(llm, llm.optimizer ?? {}, env),
    agent: resolveEndpoint(llm, llm.agent ?? {}, env),
    guide: resolveEndpoint(llm, llm.guide ?? {}, env),
  };
}

/** POLCA's default embedding model: the original's `embedding_model` default (a LiteLLM name). */
export const DEFAULT_EMBEDDING_MODEL = "gemini/gemini-embedding-001";

/**
 * Where embeddings go: `llm.embedding`'s keys, else the llm block's, else the environment, as for
 * any role; but the model is never the block's chat model: `model` (a trainer's `embedding_model`
 * kwarg), else `llm.embedding.model`, else DEFAULT_EMBEDDING_MODEL.
 */
export function resolveEmbeddingEndpoint(llm: LlmBlockSettings, env: Env = process.env, model?: string): LlmEndpoint {
  const role = llm.embedding ?? {};
  return { ...resolveEndpoint(llm, role, env), model: model ?? role.model ?? DEFAULT_EMBEDDING_MODEL };
}

/** The endpoint's API key, or undefined when unset or empty. OPENROUTER_API_KEY falls back to OPENAI_API_KEY. */
export function apiKeyFor(endpoint: Pick<LlmEndpoint, "apiKeyEnv">, env: Env = process.env): string | undefined {
  const key = env[endpoint.apiKeyEnv] ?? (endpoint.apiKeyEnv === "OPENROUTER_API_KEY" ? env.OPENAI_API_KEY : undefined);
  return key === undefined || key === "" ? undefined : key;
}

/**
 * One line per key variable that mode real needs and the environment lacks, naming the variable
 * and the config key that changes it; a variable both roles use is reported once.
 */
export function missingApiKeys(roles: LlmRoles, env: Env = process.env): string[] {
  const rolesOf = new Map<string, LlmEndpointRole[]>();
  for (const role of LLM_ROLE_NAMES) {
    if (apiKeyFor(roles[role], env) !== undefined) continue;
    const variable = roles[role].apiKeyEnv;
    rolesOf.set(variable, [...(rolesOf.get(variable) ?? []), role]);
  }
  return [...rolesOf].map(([variable, users]) => {
    // Used by more than one role: it comes from the llm block (roles that override it name their own).
    const shared = users.length > 1;
    const key = shared ? "llm.api_key_env" : `llm.${users[0]}.api_key_env`;
    const forWhom = shared ? "" : ` for the ${users[0]}`;
    return `${key}: mode real needs an API key${forWhom} in the environment variable ${variable}; set it (a .env file works too), or name another variable with ${key}`;
  });
}
