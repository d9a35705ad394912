/** Each role's LLM endpoint from the llm block, its role overrides and the environment (spec §8.1). */
import { describe, expect, it } from "vitest";
import { realLlmSettings } from "../../../adapters/llm/index.js";
import { ConfigError } from "../../../src/config/config-error.js";
import type { OneModelLlmConfig as LlmConfig } from "../../../src/config/model-axis.js";
import type { RunConfig } from "../../../src/config/run-config.js";
import { apiKeyFor, DEFAULT_EMBEDDING_MODEL, missingApiKeys, resolveEmbeddingEndpoint, resolveLlmRoles, type LlmEndpoint } from "../../../src/llm/llm-roles.js";

const LIMIT_DEFAULTS = { timeoutMs: 120_000, maxRetries: 5, maxConcurrency: 8, requestsPerMinute: null };

describe("the plain llm block (no role overrides)", () => {
  it("without llm block or environment: gpt-4o on OpenAI's default URL, key in OPENAI_API_KEY, default limits", () => {
    const roles = resolveLlmRoles({}, {});
    const expected: LlmEndpoint = { provider: "openai", model: "gpt-4o", apiKeyEnv: "OPENAI_API_KEY", ...LIMIT_DEFAULTS };
    expect(roles).toEqual({ optimizer: expected, agent: expected, guide: expected });
    expect("baseURL" in roles.optimizer).toBe(false);
  });

  it("openrouter: OPENROUTER_API_KEY and the openrouter.ai URL", () => {
    expect(resolveLlmRoles({ provider: "openrouter", model: "anthropic/claude-sonnet-4" }, {}).optimizer).toEqual({
      provider: "openrouter",
      model: "anthropic/claude-sonnet-4",
      baseURL: "https://openrouter.ai/api/v1",
      apiKeyEnv: "OPENROUTER_API_KEY",
      ...LIMIT_DEFAULTS,
    });
  });

  it("model falls back to TRACE_LITELLM_MODEL, then DEFAULT_LITELLM_MODEL; base URL to OPENAI_BASE_URL, then OPENAI_API_BASE", () => {
    const env = { TRACE_LITELLM_MODEL: "gpt-4.1", DEFAULT_LITELLM_MODEL: "gpt-4o-mini", OPENAI_BASE_URL: "http://a", OPENAI_API_BASE: "http://b" };
    expect(resolveLlmRoles({}, env).optimizer).toMatchObject({ model: "gpt-4.1", baseURL: "http://a" });
    expect(resolveLlmRoles({}, { DEFAULT_LITELLM_MODEL: "gpt-4o-mini", OPENAI_API_BASE: "http://b" }).optimizer).toMatchObject({ model: "gpt-4o-mini", baseURL: "http://b" });
    // The config wins over the environment; api_base is base_url's alias.
    expect(resolveLlmRoles({ model: "o3", api_base: "http://c" }, env).optimizer).toMatchObject({ model: "o3", baseURL: "http://c" });
  });

  it("the provider is inferred from an openrouter.ai base URL, but the key variable follows only the configured provider", () => {
    const endpoint = resolveLlmRoles({}, { OPENAI_BASE_URL: "https://openrouter.ai/api/v1" }).optimizer;
    expect(endpoint.provider).toBe("openrouter");
    expect(endpoint.apiKeyEnv).toBe("OPENAI_API_KEY");
  });

  it("the block's limits apply to both roles; seconds become milliseconds", () => {
    const roles = resolveLlmRoles({ timeout_seconds: 2.5, max_retries: 0, max_concurrency: 3, requests_per_minute: 60 }, {});
    for (const endpoint of [roles.optimizer, roles.agent]) {
      expect(endpoint).toMatchObject({ timeoutMs: 2500, maxRetries: 0, maxConcurrency: 3, requestsPerMinute: 60 });
    }
  });

  // Spec §8.1's resolution, written out per case: what mode real sends where, with which key.
  type Settings = { apiKey: string; model: string; baseURL?: string };
  const cases: ReadonlyArray<readonly [string, LlmConfig, Record<string, string>, Settings]> = [
    ["nothing but a key", {}, { OPENAI_API_KEY: "k" }, { apiKey: "k", model: "gpt-4o" }],
    ["environment model and URL", {}, { OPENAI_API_KEY: "k", TRACE_LITELLM_MODEL: "m1", DEFAULT_LITELLM_MODEL: "m2", OPENAI_API_BASE: "http://b" }, { apiKey: "k", model: "m1", baseURL: "http://b" }],
    ["DEFAULT_LITELLM_MODEL only", {}, { OPENAI_API_KEY: "k", DEFAULT_LITELLM_MODEL: "m2" }, { apiKey: "k", model: "m2" }],
    ["an empty OPENAI_BASE_URL", {}, { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "" }, { apiKey: "k", model: "gpt-4o" }],
    ["openrouter with its own key", { provider: "openrouter" }, { OPENROUTER_API_KEY: "r" }, { apiKey: "r", model: "gpt-4o", baseURL: "https://openrouter.ai/api/v1" }],
    ["openrouter falling back to OPENAI_API_KEY", { provider: "openrouter", model: "x/y" }, { OPENAI_API_KEY: "k" }, { apiKey: "k", model: "x/y", baseURL: "https://openrouter.ai/api/v1" }],
    ["openrouter with an explicit URL", { provider: "openrouter", base_url: "http://proxy" }, { OPENROUTER_API_KEY: "r", OPENAI_BASE_URL: "http://env" }, { apiKey: "r", model: "gpt-4o", baseURL: "http://proxy" }],
    ["a named key variable", { api_key_env: "MY_KEY", model: "gpt-5", api_base: "http://c" }, { MY_KEY: "secret" }, { apiKey: "secret", model: "gpt-5", baseURL: "http://c" }],
    ["base_url before api_base", { base_url: "http://a", api_base: "http://b" }, { OPENAI_API_KEY: "k" }, { apiKey: "k", model: "gpt-4o", baseURL: "http://a" }],
  ];

  it.each(cases)("%s: both roles and realLlmSettings resolve the same model, URL and key", (_name, llm, env, expected) => {
    const { apiKey, model, baseURL } = realLlmSettings({ llm } as RunConfig, env);
    expect({ apiKey, model, ...(baseURL ? { baseURL } : {}) }).toEqual(expected);
    for (const endpoint of Object.values(resolveLlmRoles(llm, env))) {
      expect({ apiKey: apiKeyFor(endpoint, env), model: endpoint.model, ...(endpoint.baseURL ? { baseURL: endpoint.baseURL } : {}) }).toEqual(expected);
    }
  });

  it.each([
    ["no key at all", {}, {}],
    ["an empty key", {}, { OPENAI_API_KEY: "" }],
    ["an empty OPENROUTER_API_KEY does not fall back", { provider: "openrouter" }, { OPENROUTER_API_KEY: "", OPENAI_API_KEY: "k" }],
    ["a named variable that is unset", { api_key_env: "MY_KEY" }, { OPENAI_API_KEY: "k" }],
  ] as const)("%s: missing for realLlmSettings and for missingApiKeys alike", (_name, llm, env) => {
    expect(() => realLlmSettings({ llm } as RunConfig, env)).toThrow(ConfigError);
    const roles = resolveLlmRoles(llm, env);
    expect(apiKeyFor(roles.optimizer, env)).toBeUndefined();
    expect(missingApiKeys(roles, env)).toHaveLength(1);
  });
});

describe("role overrides", () => {
  const llm: LlmConfig = {
    provider: "openai",
    model: "gpt-4o",
    base_url: "http://shared",
    api_key_env: "SHARED_KEY",
    timeout_seconds: 30,
    max_concurrency: 4,
    requests_per_minute: 100,
    optimizer: { model: "o3", timeout_seconds: 300, requests_per_minute: null },
    agent: { provider: "openrouter", api_key_env: null, model: "anthropic/claude-sonnet-4", base_url: "https://openrouter.ai/api/v1", max_retries: 1 },
  };

  it("replace only the keys they give; the rest come from the block", () => {
    const roles = resolveLlmRoles(llm, { TRACE_LITELLM_MODEL: "ignored" });
    expect(roles.optimizer).toEqual({
      provider: "openai",
      model: "o3",
      baseURL: "http://shared",
      apiKeyEnv: "SHARED_KEY",
      timeoutMs: 300_000,
      maxRetries: 5,
      maxConcurrency: 4,
      requestsPerMinute: null,
    });
    // api_key_env: null in the role means "not given": the block's SHARED_KEY applies.
    expect(roles.agent).toEqual({
      provider: "openrouter",
      model: "anthropic/claude-sonnet-4",
      baseURL: "https://openrouter.ai/api/v1",
      apiKeyEnv: "SHARED_KEY",
      timeoutMs: 30_000,
      maxRetries: 1,
      maxConcurrency: 4,
      requestsPerMinute: 100,
    });
  });

  it("a role's provider picks that role's default key variable and URL when the block names none", () => {
    const roles = resolveLlmRoles({ model: "gpt-4o", agent: { provider: "openrouter" } }, {});
    expect(roles.optimizer).toMatchObject({ provider: "openai", apiKeyEnv: "OPENAI_API_KEY" });
    expect(roles.optimizer.baseURL).toBeUndefined();
    expect(roles.agent).toMatchObject({ provider: "openrouter", apiKeyEnv: "OPENROUTER_API_KEY", baseURL: "https://openrouter.ai/api/v1", model: "gpt-4o" });
  });

  it("llm.guide overrides the guide's endpoint alone; without it the guide calls the block's endpoint", () => {
    const roles = resolveLlmRoles({ ...llm, guide: { model: "gpt-4o-mini", base_url: "http://judge" } }, {});
    expect(roles.guide).toMatchObject({ model: "gpt-4o-mini", baseURL: "http://judge", apiKeyEnv: "SHARED_KEY", timeoutMs: 30_000, requestsPerMinute: 100 });
    expect(roles.agent.model).toBe("anthropic/claude-sonnet-4");
    expect(resolveLlmRoles(llm, {}).guide).toMatchObject({ model: "gpt-4o", baseURL: "http://shared" });
  });

  it("a guide key variable of its own that is missing names llm.guide.api_key_env", () => {
    const env = { OPENAI_API_KEY: "k" };
    expect(missingApiKeys(resolveLlmRoles({ guide: { api_key_env: "JUDGE_KEY" } }, env), env)).toEqual([
      "llm.guide.api_key_env: mode real needs an API key for the guide in the environment variable JUDGE_KEY; set it (a .env file works too), or name another variable with llm.guide.api_key_env",
    ]);
  });

  it("a null role override is no override", () => {
    expect(resolveLlmRoles({ model: "m", optimizer: null }, {}).optimizer).toEqual(resolveLlmRoles({ model: "m" }, {}).optimizer);
  });
});

describe("missingApiKeys", () => {
  it("none when every role's variable is set", () => {
    expect(missingApiKeys(resolveLlmRoles({}, { OPENAI_API_KEY: "k" }), { OPENAI_API_KEY: "k" })).toEqual([]);
  });

  it("a variable both roles use is one line naming it and llm.api_key_env", () => {
    expect(missingApiKeys(resolveLlmRoles({ api_key_env: "MY_KEY" }, {}), {})).toEqual([
      "llm.api_key_env: mode real needs an API key in the environment variable MY_KEY; set it (a .env file works too), or name another variable with llm.api_key_env",
    ]);
  });

  it("a variable only one role uses names that role and its key", () => {
    const env = { OPENAI_API_KEY: "k" };
    const roles = resolveLlmRoles({ optimizer: { api_key_env: "OPT_KEY" }, agent: { api_key_env: "AGENT_KEY" } }, env);
    expect(missingApiKeys(roles, env)).toEqual([
      "llm.optimizer.api_key_env: mode real needs an API key for the optimizer in the environment variable OPT_KEY; set it (a .env file works too), or name another variable with llm.optimizer.api_key_env",
      "llm.agent.api_key_env: mode real needs an API key for the agent in the environment variable AGENT_KEY; set it (a .env file works too), or name another variable with llm.agent.api_key_env",
    ]);
    expect(missingApiKeys(roles, { ...env, OPT_KEY: "o" })).toHaveLength(1);
  });

  it("OPENROUTER_API_KEY is satisfied by OPENAI_API_KEY, as when the LLM is built", () => {
    const roles = resolveLlmRoles({ provider: "openrouter" }, {});
    expect(missingApiKeys(roles, { OPENAI_API_KEY: "k" })).toEqual([]);
    expect(missingApiKeys(roles, {})[0]).toContain("environment variable OPENROUTER_API_KEY;");
  });
});

describe("the embeddings endpoint (llm.embedding)", () => {
  it("takes the llm block's endpoint and key but never its chat model: the original's default embedding model", () => {
    const e = resolveEmbeddingEndpoint({ model: "gpt-4o", base_url: "http://proxy/v1", api_key_env: "PROXY_KEY" }, { TRACE_LITELLM_MODEL: "gpt-4.1" });
    expect(e).toEqual({ provider: "openai", model: DEFAULT_EMBEDDING_MODEL, baseURL: "http://proxy/v1", apiKeyEnv: "PROXY_KEY", ...LIMIT_DEFAULTS });
    expect(DEFAULT_EMBEDDING_MODEL).toBe("gemini/gemini-embedding-001");
  });

  it("llm.embedding overrides model and endpoint; a trainer's embedding_model overrides the model", () => {
    const llm = { model: "gpt-4o", embedding: { model: "text-embedding-3-small", base_url: "http://embed/v1", api_key_env: "EMBED_KEY", max_concurrency: 2 } };
    expect(resolveEmbeddingEndpoint(llm, {})).toMatchObject({ model: "text-embedding-3-small", baseURL: "http://embed/v1", apiKeyEnv: "EMBED_KEY", maxConcurrency: 2 });
    expect(resolveEmbeddingEndpoint(llm, {}, "text-embedding-3-large").model).toBe("text-embedding-3-large");
  });

  it("is no chat role: mode real asks for its key only when a trainer embeds", () => {
    const roles = resolveLlmRoles({ embedding: { api_key_env: "EMBED_KEY" } }, { OPENAI_API_KEY: "k" });
    expect(Object.keys(roles)).toEqual(["optimizer", "agent", "guide"]);
    expect(missingApiKeys(roles, { OPENAI_API_KEY: "k" })).toEqual([]);
  });
});
