/**
 * The loopback audit endpoint over real HTTP: the `openai` client pointed at it gets OpenAI-shaped
 * replies from the channel's TaskLlm; only the job's secret is accepted; streaming, unknown routes,
 * foreign roles and oversized bodies are refused with their status; the Unix socket serves the
 * same requests; a closed endpoint accepts nothing.
 */
import { request as httpRequest } from "node:http";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import type { TaskLlm, TaskLlmRequest } from "../../../src/domain/task-llm.js";
import { BudgetExhausted } from "../../../src/llm/job-calls.js";
import { LoopbackEndpoint } from "../../../src/llm/loopback-endpoint.js";

const opened: LoopbackEndpoint[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((e) => e.close()));
});

async function open(options: { maxRequestBytes?: number } = {}): Promise<LoopbackEndpoint> {
  const endpoint = await LoopbackEndpoint.open({ ...options, socketDir: mkdtempSync(join(tmpdir(), "tb-test-")) });
  opened.push(endpoint);
  return endpoint;
}

/** A TaskLlm that answers with the last user message reversed, and keeps what it was asked. */
function echoLlm(): TaskLlm & { asked: TaskLlmRequest[] } {
  const asked: TaskLlmRequest[] = [];
  return {
    asked,
    complete(request) {
      asked.push(request);
      const text = request.messages.at(-1)!.content;
      return Promise.resolve({ content: [...text].reverse().join(""), usage: { prompt_tokens: text.length, completion_tokens: 3, total_tokens: text.length + 3 }, model: "scripted-model", stub: false });
    },
  };
}

interface Raw {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One HTTP request by hand (over TCP or the socket), to see statuses the client would hide. */
function raw(target: { port: number } | { socketPath: string }, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { ...("port" in target ? { host: "127.0.0.1", port: target.port } : { socketPath: target.socketPath }), path, method: options.method ?? "POST", headers: { "content-type": "application/json", ...options.headers } },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end(options.body ?? "");
  });
}

const chat = (content: string, extra: Record<string, unknown> = {}) => JSON.stringify({ model: "any", messages: [{ role: "user", content }], ...extra });

describe("the loopback audit endpoint", () => {
  it("answers the openai client through the channel's TaskLlm, in OpenAI's shape with usage", async () => {
    const endpoint = await open();
    const llm = echoLlm();
    const served = endpoint.channel("b1-e0", llm);
    expect(served.baseUrl).toBe(`http://127.0.0.1:${endpoint.port}/b1-e0/v1`);
    const client = new OpenAI({ baseURL: served.baseUrl, apiKey: served.apiKey, maxRetries: 0 });
    const reply = await client.chat.completions.create({ model: "whatever", messages: [{ role: "system", content: "be brief" }, { role: "user", content: "hello" }], max_tokens: 12, temperature: 0.5 });
    expect(reply.choices[0]!.message.content).toBe("olleh");
    expect(reply.usage).toEqual({ prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 });
    expect(reply.model).toBe("scripted-model");
    expect(llm.asked).toEqual([{ role: "agent", messages: [{ role: "system", content: "be brief" }, { role: "user", content: "hello" }], maxTokens: 12, temperature: 0.5 }]);
  });

  it("accepts only the job's secret as the bearer key: no key, another key or the key elsewhere is a 401", async () => {
    const endpoint = await open();
    const llm = echoLlm();
    const served = endpoint.channel("c", llm);
    const path = `${served.basePath}/chat/completions`;
    const refused: Record<string, string>[] = [{}, { authorization: "Bearer sk-real-looking-key" }, { authorization: `Bearer ${served.apiKey}x` }, { authorization: served.apiKey }, { "x-api-key": served.apiKey }];
    for (const headers of refused) {
      const r = await raw(endpoint, path, { headers, body: chat("hi") });
      expect(r.status, JSON.stringify(headers)).toBe(401);
      expect(JSON.parse(r.body).error.type).toBe("authentication_error");
    }
    // Without the key, not even an unknown route is told apart.
    expect((await raw(endpoint, "/nowhere", { body: "" })).status).toBe(401);
    expect(llm.asked).toHaveLength(0);
    const ok = await raw(endpoint, path, { headers: { authorization: `Bearer ${served.apiKey}` }, body: chat("hi") });
    expect(ok.status).toBe(200);
  });

  it("refuses streaming, unknown routes and channels, foreign roles and bad bodies, without calling the LLM and telling clients not to retry", async () => {
    const endpoint = await open();
    const llm = echoLlm();
    const served = endpoint.channel("c", llm);
    const auth = { authorization: `Bearer ${served.apiKey}` };
    const path = `${served.basePath}/chat/completions`;
    const stream = await raw(endpoint, path, { headers: auth, body: chat("hi", { stream: true }) });
    expect(stream.status).toBe(400);
    expect(JSON.parse(stream.body).error.message).toMatch(/stream: true is not supported/);
    expect(stream.headers["x-should-retry"]).toBe("false");
    expect((await raw(endpoint, "/c/v1/embeddings", { headers: auth, body: chat("hi") })).status).toBe(404);
    expect((await raw(endpoint, "/other/v1/chat/completions", { headers: auth, body: chat("hi") })).status).toBe(404);
    expect((await raw(endpoint, path, { method: "GET", headers: auth })).status).toBe(404);
    const optimizer = await raw(endpoint, path, { headers: { ...auth, "x-trace-bench-role": "optimizer" }, body: chat("hi") });
    expect(optimizer.status).toBe(400);
    expect(JSON.parse(optimizer.body).error.message).toMatch(/x-trace-bench-role 'optimizer' is not a role a task may use/);
    expect((await raw(endpoint, path, { headers: auth, body: "{not json" })).status).toBe(400);
    expect((await raw(endpoint, path, { headers: auth, body: chat("hi", { tools: [{ type: "function" }] }) })).status).toBe(400);
    expect((await raw(endpoint, path, { headers: auth, body: chat("hi", { n: 2 }) })).status).toBe(400);
    expect(llm.asked).toHaveLength(0);
    // An allowed role hint is passed on.
    const judge = await raw(endpoint, path, { headers: { ...auth, "x-trace-bench-role": "judge" }, body: chat("hi") });
    expect(judge.status).toBe(200);
    expect(llm.asked.map((r) => r.role)).toEqual(["judge"]);
  });

  it("refuses a body over the cap with 413", async () => {
    const endpoint = await open({ maxRequestBytes: 2000 });
    const llm = echoLlm();
    const served = endpoint.channel("c", llm);
    const r = await raw(endpoint, `${served.basePath}/chat/completions`, { headers: { authorization: `Bearer ${served.apiKey}` }, body: chat("x".repeat(5000)) });
    expect(r.status).toBe(413);
    expect(llm.asked).toHaveLength(0);
  });

  it("says why a call failed: a spent budget is a 429, a job stopped a 503", async () => {
    const endpoint = await open();
    const failing = (error: Error): TaskLlm => ({ complete: () => Promise.reject(error) });
    const budget = endpoint.channel("budget", failing(new BudgetExhausted("not sent: the job's token budget is spent")));
    const r = await raw(endpoint, `${budget.basePath}/chat/completions`, { headers: { authorization: `Bearer ${budget.apiKey}` }, body: chat("hi") });
    expect(r.status).toBe(429);
    expect(JSON.parse(r.body).error.message).toContain("token budget is spent");
  });

  it("serves the same requests on its Unix socket, and nothing once closed", async () => {
    const endpoint = await open();
    const llm = echoLlm();
    const served = endpoint.channel("c", llm);
    const r = await raw({ socketPath: served.socketPath }, `${served.basePath}/chat/completions`, { headers: { authorization: `Bearer ${served.apiKey}` }, body: chat("socket") });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).choices[0].message.content).toBe("tekcos");
    await endpoint.close();
    expect(existsSync(served.socketPath)).toBe(false);
    await expect(raw(endpoint, `${served.basePath}/chat/completions`, { headers: { authorization: `Bearer ${served.apiKey}` }, body: chat("late") })).rejects.toThrow(/ECONNREFUSED/);
    expect(llm.asked).toHaveLength(1);
  });
});
