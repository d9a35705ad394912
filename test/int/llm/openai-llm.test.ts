import { afterEach, describe, expect, it } from "vitest";
import { createOpenAiLlm, usesMaxCompletionTokens } from "../../../adapters/llm/openai-llm.js";
import { realLlmSettings } from "../../../adapters/llm/index.js";
import { ConfigError } from "../../../src/config/config-error.js";
import { parseConfigText } from "../../../src/config/config-file.js";
import { resolveRunConfig } from "../../../src/config/run-config.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../../support/fake-openai-server.js";

const servers: FakeOpenAiServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
async function server(...args: Parameters<typeof startFakeOpenAiServer>) {
  const s = await startFakeOpenAiServer(...args);
  servers.push(s);
  return s;
}

const messages = [
  { role: "system" as const, content: "sys" },
  { role: "user" as const, content: "hello" },
];

describe("OpenAI-compatible LLM over real HTTP", () => {
  it("sends the chat request with the key and returns content and the provider's usage", async () => {
    const s = await server(["the reply"]);
    const llm = createOpenAiLlm({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL: s.baseURL, maxRetries: 0 });
    const response = await llm.complete({ messages, maxTokens: 256, temperature: 0 });
    expect(response).toEqual({ content: "the reply", model: "gpt-4o-mini", estimated: false, retries: 0, usage: { prompt_tokens: 101, completion_tokens: 20, total_tokens: 121 } });
    expect(s.received[0]!.path).toBe("/v1/chat/completions");
    expect(s.received[0]!.authorization).toBe("Bearer sk-test");
    expect(s.received[0]!.body).toMatchObject({ model: "gpt-4o-mini", messages, max_tokens: 256, temperature: 0 });
  });

  it("uses max_completion_tokens for reasoning models", async () => {
    expect(["gpt-5-nano", "openai/o3-mini", "o1"].map(usesMaxCompletionTokens)).toEqual([true, true, true]);
    expect(usesMaxCompletionTokens("gpt-4o")).toBe(false);
    const s = await server(["ok"]);
    await createOpenAiLlm({ model: "gpt-5-nano", apiKey: "k", baseURL: s.baseURL, maxRetries: 0 }).complete({ messages, maxTokens: 10 });
    expect(s.received[0]!.body).toMatchObject({ max_completion_tokens: 10 });
    expect(s.received[0]!.body).not.toHaveProperty("max_tokens");
  });

  it("retries a server error and succeeds", async () => {
    const s = await server([{ status: 500, message: "overloaded" }, "second time lucky"]);
    const llm = createOpenAiLlm({ model: "m", apiKey: "k", baseURL: s.baseURL, maxRetries: 2, backoffBaseMs: 1 });
    expect((await llm.complete({ messages })).content).toBe("second time lucky");
    expect(s.received).toHaveLength(2);
  });

  it("asks once more without response_format when the server rejects it", async () => {
    const s = await server([{ status: 400, message: "response_format not supported" }, '{"suggestion": {}}']);
    const llm = createOpenAiLlm({ model: "m", apiKey: "k", baseURL: s.baseURL, maxRetries: 0 });
    expect((await llm.complete({ messages, responseFormat: "json_object" })).content).toBe('{"suggestion": {}}');
    expect(s.received[0]!.body).toHaveProperty("response_format", { type: "json_object" });
    expect(s.received[1]!.body).not.toHaveProperty("response_format");
  });

  it("fails on an authentication error without retrying", async () => {
    const s = await server([{ status: 401, message: "bad key" }]);
    const llm = createOpenAiLlm({ model: "m", apiKey: "k", baseURL: s.baseURL, maxRetries: 3 });
    await expect(llm.complete({ messages })).rejects.toThrow(/401/);
    expect(s.received).toHaveLength(1);
  });
});

describe("real LLM settings", () => {
  const config = (yaml: string) => resolveRunConfig(parseConfigText("c.yaml", `mode: real\ntasks: [internal:numeric_param]\n${yaml}`)).config;

  it("reads the key from the variable the config names, and the model and base URL from the llm block", () => {
    const settings = realLlmSettings(config("llm: {model: m1, base_url: 'http://x/v1', api_key_env: MY_KEY}\n"), { MY_KEY: "secret" });
    expect(settings).toEqual({ apiKey: "secret", model: "m1", baseURL: "http://x/v1" });
  });

  it("names the missing variable in a config error", () => {
    expect(() => realLlmSettings(config("llm: {api_key_env: MY_KEY}\n"), {})).toThrow(ConfigError);
    expect(() => realLlmSettings(config(""), {})).toThrow(/environment variable OPENAI_API_KEY/);
  });

  it("defaults the model like OpenTrace: TRACE_LITELLM_MODEL, else gpt-4o", () => {
    expect(realLlmSettings(config(""), { OPENAI_API_KEY: "k", TRACE_LITELLM_MODEL: "env-model" }).model).toBe("env-model");
    expect(realLlmSettings(config(""), { OPENAI_API_KEY: "k" }).model).toBe("gpt-4o");
  });
});
