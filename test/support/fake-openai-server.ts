/**
 * A scripted OpenAI-compatible server on 127.0.0.1 (the edge of the world we cannot reach):
 * answers POST /v1/chat/completions from a script and records every request it received, when it
 * came, and whether the client hung up before the answer. POST /v1/embeddings is answered apart
 * (recorded too, but it takes no step of the script): a vector computed from the input.
 */
import { afterEach } from "vitest";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface ReceivedRequest {
  readonly path: string;
  readonly authorization: string | undefined;
  readonly body: Record<string, unknown>;
  /** performance.now() when the request's body had arrived: compare two of them for spacing. */
  readonly at: number;
  /** True once the client closed the connection before the answer was sent (abort, timeout). */
  readonly aborted: boolean;
  /** True when `hold` kept the request unanswered. */
  readonly held: boolean;
}

export interface FakeUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  readonly prompt_tokens_details?: { readonly cached_tokens?: number };
}

/**
 * Common to the object steps: wait before answering; send the headers and the first byte, then wait
 * before the rest of the body (a reply that stalls mid-way); extra response headers (Retry-After...).
 */
interface StepTiming {
  readonly delayMs?: number;
  readonly bodyDelayMs?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * One reply of the script:
 * - a string: 200 with this content (and usage 100+n / 20);
 * - `{status, message}`: that HTTP status with an OpenAI-style error body;
 * - a function of the request body: 200 with the content it returns;
 * - `{reply, usage}`: 200 with this content and usage (`null`: no usage at all);
 * - `{raw}`: this exact body (malformed replies), status 200 unless given;
 * - `{drop: true}`: the connection is destroyed without an answer.
 */
export type ServerStep =
  | string
  | ({ readonly status: number; readonly message: string } & StepTiming)
  | ((body: Record<string, unknown>) => string)
  | ({ readonly reply: string; readonly usage?: FakeUsage | null } & StepTiming)
  | ({ readonly raw: string; readonly status?: number; readonly contentType?: string } & StepTiming)
  | ({ readonly drop: true } & StepTiming);

export interface FakeOpenAiServer {
  readonly baseURL: string;
  readonly received: readonly ReceivedRequest[];
  /** Most requests the server was answering at the same time. */
  readonly peakInFlight: number;
  /** Stops listening and destroys open connections, so no test waits on a hung client. */
  close(): Promise<void>;
}

type Received = { -readonly [K in keyof ReceivedRequest]: ReceivedRequest[K] };

async function readBody(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  return text;
}

function completionBody(n: number, model: unknown, content: string, usage: FakeUsage | null) {
  return {
    id: `chatcmpl-${n}`,
    object: "chat.completion",
    created: 0,
    model: String(model),
    choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
    ...(usage === null ? {} : { usage }),
  };
}

export interface FakeServerOptions {
  /** The step for requests past the script's end. */
  readonly fallback?: ServerStep;
  /** The usage of a reply whose step gives none (default 100+n / 20): e.g. counted from the request, as a provider bills. */
  readonly usage?: (body: Record<string, unknown>, n: number) => FakeUsage;
  /** The vector for an /embeddings input (default: 8 numbers from the input's characters). */
  readonly embedding?: (input: string) => number[];
  /**
   * A gate: a chat request for which this returns true (n counts chat requests from 1) is never
   * answered; the client waits until it hangs up or the server closes. For a kill at a known state.
   */
  readonly hold?: (body: Record<string, unknown>, n: number) => boolean;
}

/** A vector that depends on the text alone: its length and character codes, folded into 8 numbers. */
export function textVector(input: string): number[] {
  const v = Array.from({ length: 8 }, () => 0);
  for (let i = 0; i < input.length; i++) v[i % 8]! += input.charCodeAt(i) / 1000;
  return v.map((x) => Math.round(x * 1000) / 1000);
}

/** Prompt tokens an /embeddings reply reports for its input (a provider counts them; here 1 per 4 characters). */
export const embeddingTokens = (input: string): number => Math.max(1, Math.ceil(input.length / 4));

export async function startFakeOpenAiServer(script: readonly ServerStep[], options: FakeServerOptions = {}): Promise<FakeOpenAiServer> {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  let inFlight = 0;
  let peakInFlight = 0;
  const server: Server = createServer((req, res) => {
    inFlight += 1;
    peakInFlight = Math.max(peakInFlight, inFlight);
    let timer: NodeJS.Timeout | undefined;
    let record: Received | undefined;
    res.on("close", () => {
      inFlight -= 1;
      clearTimeout(timer);
      if (!res.writableFinished && record !== undefined) record.aborted = true;
    });
    void readBody(req).then((text) => {
      const body = JSON.parse(text || "{}") as Record<string, unknown>;
      record = { path: req.url ?? "", authorization: req.headers.authorization, body, at: performance.now(), aborted: res.destroyed, held: false };
      received.push(record);
      if ((req.url ?? "").endsWith("/embeddings")) {
        const input = String(body.input ?? "");
        const tokens = embeddingTokens(input);
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ object: "list", model: String(body.model), data: [{ object: "embedding", index: 0, embedding: (options.embedding ?? textVector)(input) }], usage: { prompt_tokens: tokens, total_tokens: tokens } }));
        return;
      }
      const n = received.filter((r) => !r.path.endsWith("/embeddings")).length;
      if (options.hold?.(body, n) === true) {
        record.held = true;
        return;
      }
      const step = script[n - 1] ?? options.fallback;
      const defaultUsage = (): FakeUsage => options.usage?.(body, n) ?? { prompt_tokens: 100 + n, completion_tokens: 20, total_tokens: 120 + n };
      const finish = (text: string) => {
        const stall = typeof step === "object" ? (step.bodyDelayMs ?? 0) : 0;
        if (stall === 0) return void res.end(text);
        res.write(text.slice(0, 1));
        timer = setTimeout(() => res.end(text.slice(1)), stall);
      };
      const answer = () => {
        if (res.destroyed) return;
        res.setHeader("content-type", "application/json");
        if (step === undefined) {
          res.statusCode = 500;
          res.end(JSON.stringify({ error: { message: `fake server: unexpected request #${n}` } }));
          return;
        }
        if (typeof step === "string" || typeof step === "function") {
          const content = typeof step === "function" ? step(body) : step;
          finish(JSON.stringify(completionBody(n, body.model, content, defaultUsage())));
          return;
        }
        for (const [name, value] of Object.entries(step.headers ?? {})) res.setHeader(name, value);
        if ("drop" in step) {
          res.socket?.destroy();
        } else if ("raw" in step) {
          res.statusCode = step.status ?? 200;
          if (step.contentType) res.setHeader("content-type", step.contentType);
          finish(step.raw);
        } else if ("reply" in step) {
          finish(JSON.stringify(completionBody(n, body.model, step.reply, step.usage === undefined ? defaultUsage() : step.usage)));
        } else {
          res.statusCode = step.status;
          finish(JSON.stringify({ error: { message: step.message, type: "invalid_request_error" } }));
        }
      };
      const delay = typeof step === "object" ? (step.delayMs ?? 0) : 0;
      if (delay > 0) timer = setTimeout(answer, delay);
      else answer();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    received,
    get peakInFlight() {
      return peakInFlight;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/**
 * For a test file: `server(...)` starts a fake server that is closed after each test (so no test
 * waits on another's sockets). Call at the top level of the file.
 */
export function fakeOpenAiServers(): (...args: Parameters<typeof startFakeOpenAiServer>) => Promise<FakeOpenAiServer> {
  const servers: FakeOpenAiServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });
  return async (...args) => {
    const s = await startFakeOpenAiServer(...args);
    servers.push(s);
    return s;
  };
}
