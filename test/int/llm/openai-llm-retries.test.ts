/** Which failures the adapter retries, how it waits between tries, and the LlmError it gives up with. */
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createOpenAiLlm, type OpenAiLlmOptions } from "../../../adapters/llm/openai-llm.js";
import { LlmError } from "../../../src/llm/llm-error.js";
import { fakeOpenAiServers } from "../../support/fake-openai-server.js";

const server = fakeOpenAiServers();

const messages = [{ role: "user" as const, content: "hello" }];
/** Tiny backoff: a wait in these tests comes from the server's Retry-After or not at all. */
const fast = (baseURL: string, more: Partial<OpenAiLlmOptions> = {}) => createOpenAiLlm({ model: "m", apiKey: "k", baseURL, backoffBaseMs: 1, backoffMaxMs: 5, ...more });

async function failure(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}

/** A base URL on a port where nothing listens. */
async function deadBaseURL(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}/v1`;
}

describe("retries", () => {
  it("waits at least the Retry-After seconds of a 429, then answers with retries 1", async () => {
    const s = await server([{ status: 429, message: "slow down", headers: { "retry-after": "1" } }, "after the pause"]);
    const response = await fast(s.baseURL).complete({ messages });
    expect(response).toMatchObject({ content: "after the pause", retries: 1 });
    expect(s.received).toHaveLength(2);
    expect(s.received[1]!.at - s.received[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it("honours retry-after-ms on a 503", async () => {
    const s = await server([{ status: 503, message: "busy", headers: { "retry-after-ms": "300" } }, "ok"]);
    expect((await fast(s.baseURL).complete({ messages })).retries).toBe(1);
    expect(s.received[1]!.at - s.received[0]!.at).toBeGreaterThanOrEqual(280);
  });

  it("retries two 500s and answers with retries 2", async () => {
    const s = await server([{ status: 500, message: "oops" }, { status: 502, message: "bad gateway" }, "third time"]);
    expect(await fast(s.baseURL).complete({ messages })).toMatchObject({ content: "third time", retries: 2 });
    expect(s.received).toHaveLength(3);
  });

  it("gives up on a server that always fails: kind server, retries = maxRetries", async () => {
    const s = await server([], { fallback: { status: 500, message: "overloaded" } });
    const error = await failure(fast(s.baseURL, { maxRetries: 3 }).complete({ messages }));
    expect(error).toMatchObject({ kind: "server", httpStatus: 500, retries: 3, message: "500 overloaded (3 retries)" });
    expect(error.stopsRun).toBe(false);
    expect(s.received).toHaveLength(4);
  });

  it("gives up on 429s with kind rate_limited", async () => {
    const s = await server([], { fallback: { status: 429, message: "quota" } });
    expect(await failure(fast(s.baseURL, { maxRetries: 1 }).complete({ messages }))).toMatchObject({ kind: "rate_limited", httpStatus: 429, retries: 1 });
  });

  it("retries a dropped connection", async () => {
    const s = await server([{ drop: true }, "reconnected"]);
    expect(await fast(s.baseURL).complete({ messages })).toMatchObject({ content: "reconnected", retries: 1 });
  });

  it("reports a dead base URL as network after its retries, naming the URL and the code", async () => {
    const baseURL = await deadBaseURL();
    const error = await failure(fast(baseURL, { maxRetries: 2 }).complete({ messages }));
    expect(error).toMatchObject({ kind: "network", httpStatus: null, retries: 2, message: `connection refused to ${baseURL} (ECONNREFUSED) (2 retries)` });
  });

  it("retries a 200 whose body is not JSON, then gives up with kind malformed", async () => {
    const s = await server([], { fallback: { raw: "<html>proxy error</html>" } });
    const error = await failure(fast(s.baseURL, { maxRetries: 2 }).complete({ messages }));
    expect(error).toMatchObject({ kind: "malformed", httpStatus: 200, retries: 2, message: "malformed reply: body is not JSON (2 retries)" });
    expect(s.received).toHaveLength(3);
  });

  it("retries a 200 without choices (also one sent as text/html), then takes the good reply", async () => {
    const s = await server([{ raw: '{"id": "x", "object": "chat.completion"}' }, { raw: "upstream down", contentType: "text/html" }, "finally"]);
    expect(await fast(s.baseURL).complete({ messages })).toMatchObject({ content: "finally", retries: 2 });
  });

  it("says what an OpenRouter-style 200 error object said", async () => {
    const s = await server([], { fallback: { raw: '{"error": {"message": "upstream provider timed out"}}' } });
    expect(await failure(fast(s.baseURL, { maxRetries: 0 }).complete({ messages }))).toMatchObject({ kind: "malformed", message: "malformed reply: no choices (upstream provider timed out)" });
  });
});

describe("failures that no retry fixes", () => {
  it("401: kind auth after exactly one request, without the key in the message", async () => {
    const apiKey = "sk-proj-abc1SECRETSECRETSECRETwxyz";
    const s = await server([{ status: 401, message: "Incorrect API key provided: sk-proj-abc1************************wxyz. You can find your API key at https://platform.openai.com/account/api-keys." }]);
    const error = await failure(fast(s.baseURL, { apiKey, maxRetries: 5 }).complete({ messages }));
    expect(error).toMatchObject({ kind: "auth", httpStatus: 401, retries: 0 });
    expect(error.stopsRun).toBe(true);
    expect(error.message).toMatch(/^401 Incorrect API key provided: \[redacted\]\. /);
    expect(error.message).not.toContain("sk-");
    expect(error.message).not.toContain("abc1");
    expect(s.received).toHaveLength(1);
  });

  it("redacts a key the server echoes in full, and keeps the message on one line", async () => {
    const apiKey = "custom-proxy-key-0123456789";
    const s = await server([{ status: 400, message: `bad request\nfor key ${apiKey}` }]);
    const error = await failure(fast(s.baseURL, { apiKey }).complete({ messages }));
    expect(error.message).toBe("400 bad request for key [redacted]");
  });

  it("403: kind permission", async () => {
    const s = await server([{ status: 403, message: "not allowed" }]);
    expect(await failure(fast(s.baseURL).complete({ messages }))).toMatchObject({ kind: "permission", httpStatus: 403, retries: 0 });
    expect(s.received).toHaveLength(1);
  });

  it("404: kind model_not_found, which stops the run", async () => {
    const s = await server([{ status: 404, message: "The model `gpt-9` does not exist or you do not have access to it." }]);
    const error = await failure(fast(s.baseURL).complete({ messages }));
    expect(error).toMatchObject({ kind: "model_not_found", httpStatus: 404 });
    expect(error.stopsRun).toBe(true);
    expect(s.received).toHaveLength(1);
  });

  it("a 400 or 422 that says the model is unknown is model_not_found; other 400s and 422s are bad_request", async () => {
    const s = await server([
      { status: 400, message: "gpt-9 is not a valid model ID" },
      { status: 422, message: "The model `gpt-9` does not exist." },
      { status: 400, message: "Invalid parameter: 'temperature' is not supported with this model." },
      { status: 422, message: "messages: field required" },
    ]);
    const llm = fast(s.baseURL);
    const kinds = [];
    for (let i = 0; i < 4; i += 1) kinds.push((await failure(llm.complete({ messages }))).kind);
    expect(kinds).toEqual(["model_not_found", "model_not_found", "bad_request", "bad_request"]);
    expect(s.received).toHaveLength(4);
  });

  it("400: kind bad_request after one request", async () => {
    const s = await server([{ status: 400, message: "context length exceeded" }]);
    expect(await failure(fast(s.baseURL, { maxRetries: 5 }).complete({ messages }))).toMatchObject({ kind: "bad_request", httpStatus: 400, retries: 0, message: "400 context length exceeded" });
    expect(s.received).toHaveLength(1);
  });
});
