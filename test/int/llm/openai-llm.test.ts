import { describe, expect, it } from "vitest";
import { createOpenAiLlm, usesMaxCompletionTokens } from "../../../adapters/llm/openai-llm.js";
import { realLlmSettings } from "../../../adapters/llm/index.js";
import { ConfigError } from "../../../src/config/config-error.js";
import { estimateTokens } from "../../../src/llm/llm.js";
import { parseConfigText } from "../../../src/config/config-file.js";
import { resolveRunConfig } from "../../../src/config/run-config.js";
import { fakeOpenAiServers } from "../../support/fake-openai-server.js";

const server = fakeOpenAiServers();

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

  it("reads cached prompt tokens from usage.prompt_tokens_details", async () => {
    const s = await server([{ reply: "cached", usage: { prompt_tokens: 1000, completion_tokens: 5, total_tokens: 1005, prompt_tokens_details: { cached_tokens: 768 } } }]);
    const response = await createOpenAiLlm({ model: "m", apiKey: "k", baseURL: s.baseURL }).complete({ messages });
    expect(response).toMatchObject({ estimated: false, retries: 0, usage: { prompt_tokens: 1000, completion_tokens: 5, total_tokens: 1005, cached_tokens: 768 } });
  });

  it("estimates usage, and says so, when the server reports none", async () => {
    const s = await server([{ reply: "12345678", usage: null }]);
    const response = await createOpenAiLlm({ model: "m", apiKey: "k", baseURL: s.baseURL }).complete({ messages });
    expect(response.estimated).toBe(true);
    expect(response.usage).toEqual({ prompt_tokens: estimateTokens("sys\nhello"), completion_tokens: 2, total_tokens: estimateTokens("sys\nhello") + 2 });
  });

  it("remembers that the server refused response_format, so later calls do not ask with it again", async () => {
    const s = await server([{ status: 400, message: "response_format not supported" }, "{}", "{}"]);
    const llm = createOpenAiLlm({ model: "m", apiKey: "k", baseURL: s.baseURL, maxRetries: 0 });
    expect((await llm.complete({ messages, responseFormat: "json_object" })).retries).toBe(0);
    await llm.complete({ messages, responseFormat: "json_object" });
    expect(s.received.map((r) => "response_format" in r.body)).toEqual([true, false, false]);
  });

  it("does not resend without response_format when the 400 is about something else", async () => {
    const s = await server([{ status: 400, message: "The model `x` does not exist" }]);
    const llm = createOpenAiLlm({ model: "x", apiKey: "k", baseURL: s.baseURL });
    await expect(llm.complete({ messages, responseFormat: "json_object" })).rejects.toMatchObject({ kind: "model_not_found" });
    expect(s.received).toHaveLength(1);
  });

  it("fails on an authentication error without retrying", async () => {
    const s = await server([{ status: 401, message: "bad key" }]);
    const llm = createOpenAiLlm({ model: "m", apiKey: "k", baseURL: s.baseURL, maxRetries: 3 });
    await expect(llm.complete({ messages })).rejects.toMatchObject({ kind: "auth", httpStatus: 401, message: "401 bad key" });
    expect(s.received).toHaveLength(1);
  });
});

describe("real LLM settings", () => {
  const config = (yaml: string) => resolveRunConfig(parseConfigText("c.yaml", `mode: real\ntasks: [internal:numeric_param]\n${yaml}`)).config;

  it("reads the key from the variable the config names, and the model and base URL from the llm block", () => {
    const settings = realLlmSettings(config("llm: {model: m1, base_url: 'http://x/v1', api_key_env: MY_KEY}\n"), { MY_KEY: "secret" });
    expect(settings).toMatchObject({ apiKey: "secret", model: "m1", baseURL: "http://x/v1" });
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
