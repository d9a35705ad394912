/**
 * A scripted OpenAI-compatible server on 127.0.0.1 (the edge of the world we cannot reach):
 * answers POST /v1/chat/completions from a script and records every request it received.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  readonly path: string;
  readonly authorization: string | undefined;
  readonly body: Record<string, unknown>;
}

/** A reply: 200 with this content, or an HTTP error status with a message. */
export type ServerStep = string | { readonly status: number; readonly message: string } | ((body: Record<string, unknown>) => string);

export interface FakeOpenAiServer {
  readonly baseURL: string;
  readonly received: ReceivedRequest[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  return text;
}

export async function startFakeOpenAiServer(script: readonly ServerStep[], options: { fallback?: (body: Record<string, unknown>) => string } = {}): Promise<FakeOpenAiServer> {
  const received: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    void readBody(req).then((text) => {
      const body = JSON.parse(text || "{}") as Record<string, unknown>;
      received.push({ path: req.url ?? "", authorization: req.headers.authorization, body });
      const step = script[received.length - 1] ?? options.fallback;
      res.setHeader("content-type", "application/json");
      if (step === undefined) {
        res.statusCode = 500;
        res.end(JSON.stringify({ error: { message: `fake server: unexpected request #${received.length}` } }));
        return;
      }
      if (typeof step === "object") {
        res.statusCode = step.status;
        res.end(JSON.stringify({ error: { message: step.message, type: "invalid_request_error" } }));
        return;
      }
      const content = typeof step === "function" ? step(body) : step;
      res.end(
        JSON.stringify({
          id: `chatcmpl-${received.length}`,
          object: "chat.completion",
          created: 0,
          model: String(body.model),
          choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
          usage: { prompt_tokens: 100 + received.length, completion_tokens: 20, total_tokens: 120 + received.length },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
