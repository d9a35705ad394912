/**
 * A job's loopback audit endpoint: an OpenAI-compatible `POST /<channel>/v1/chat/completions`
 * served on 127.0.0.1 (an ephemeral port) and on a Unix socket (for sandboxes without network),
 * for code that talks to an LLM API itself (a Python agent, DSPy, a CLI). Each request goes
 * through the channel's `TaskLlm`, the job's recorded, journaled, budgeted path, and its reply
 * comes back in OpenAI's shape with usage. The only key accepted is the job's random secret; the
 * provider's key stays in this process.
 *
 * A channel is one example's calls (its slots), so a request is journaled where the example's
 * own calls are. Error replies carry `x-should-retry: false`: our client already retried the
 * provider, and a client retrying on top would send (and record) the request again.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { TaskLlm, TaskLlmEndpoint } from "../domain/task-llm.js";
import { BudgetExhausted } from "./job-calls.js";
import { isLlmError } from "./llm-error.js";
import { loopbackSocketDir } from "./loopback-socket-dir.js";
import { parseLoopbackRequest, ROLE_HEADER } from "./loopback-request.js";

/** Bytes a request body may have (a prompt of ~1M tokens); more is a 413. */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

export interface LoopbackEndpointOptions {
  readonly maxRequestBytes?: number;
  /** Where the Unix socket goes (default: the process's loopback socket folder). */
  readonly socketDir?: string;
}

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = "invalid_request_error",
  ) {
    super(message);
  }
}

const CHANNEL = /^\/([A-Za-z0-9_-]{1,64})\/v1\/chat\/completions$/;

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendProblem(res: ServerResponse, problem: HttpProblem): void {
  sendJson(res, problem.status, { error: { message: problem.message, type: problem.type, code: null, param: null } }, { "x-should-retry": "false" });
}

async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) throw new HttpProblem(413, `the request body is ${declared} bytes; at most ${limit} are accepted`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new HttpProblem(413, `the request body is over ${limit} bytes, the most accepted`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The reply of a call that failed, as an HTTP status a client understands. */
function problemOf(error: unknown): HttpProblem {
  const message = (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 500);
  if (error instanceof BudgetExhausted) return new HttpProblem(429, message, "insufficient_quota");
  if (isLlmError(error)) {
    if (error.kind === "aborted") return new HttpProblem(503, `the job was stopped: ${message}`, "job_stopped");
    return new HttpProblem(502, `the provider gave no reply (${error.kind}): ${message}`, "upstream_error");
  }
  return new HttpProblem(500, message, "server_error");
}

function listen(server: Server, where: { port: number; host: string } | string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    const done = () => {
      server.off("error", reject);
      resolve();
    };
    if (typeof where === "string") server.listen(where, done);
    else server.listen(where.port, where.host, done);
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export class LoopbackEndpoint {
  private readonly channels = new Map<string, TaskLlm>();
  private replies = 0;
  private closed = false;

  private constructor(
    private readonly secret: string,
    private readonly tcp: Server,
    private readonly unix: Server,
    readonly port: number,
    readonly socketPath: string,
  ) {}

  /** Opens the endpoint: listening on 127.0.0.1 and on its socket when this resolves. */
  static async open(options: LoopbackEndpointOptions = {}): Promise<LoopbackEndpoint> {
    const secret = `tb-${randomBytes(24).toString("hex")}`;
    const limit = options.maxRequestBytes ?? MAX_REQUEST_BYTES;
    let endpoint: LoopbackEndpoint | null = null;
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      void endpoint!.handle(req, res, limit).catch(() => res.destroy());
    };
    const tcp = createServer(handler);
    const unix = createServer(handler);
    const socketPath = join(options.socketDir ?? loopbackSocketDir(), `${randomBytes(8).toString("hex")}.sock`);
    try {
      await listen(tcp, { port: 0, host: "127.0.0.1" });
      await listen(unix, socketPath);
      // Any user may connect (a sandbox's process runs under a uid of its own); the secret is the lock.
      chmodSync(socketPath, 0o666);
    } catch (error) {
      await Promise.all([closeServer(tcp), closeServer(unix)]);
      rmSync(socketPath, { force: true });
      throw error;
    }
    endpoint = new LoopbackEndpoint(secret, tcp, unix, (tcp.address() as AddressInfo).port, socketPath);
    return endpoint;
  }

  /** Serves `llm` (one example's calls) under `channel`; what its code is given. */
  channel(channel: string, llm: TaskLlm): TaskLlmEndpoint {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(channel)) throw new Error(`loopback channel '${channel}': letters, digits, - and _ only`);
    this.channels.set(channel, llm);
    const basePath = `/${channel}/v1`;
    return { baseUrl: `http://127.0.0.1:${this.port}${basePath}`, apiKey: this.secret, socketPath: this.socketPath, basePath };
  }

  /** Stops listening and drops open connections; requests in flight get no answer. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.channels.clear();
    await Promise.all([closeServer(this.tcp), closeServer(this.unix)]);
    rmSync(this.socketPath, { force: true });
  }

  private authorized(req: IncomingMessage): boolean {
    const header = req.headers.authorization ?? "";
    const given = Buffer.from(header.startsWith("Bearer ") ? header.slice("Bearer ".length).trim() : "");
    const expected = Buffer.from(this.secret);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private async handle(req: IncomingMessage, res: ServerResponse, limit: number): Promise<void> {
    try {
      // Before anything else: without the secret, not even which routes exist is told.
      if (!this.authorized(req)) throw new HttpProblem(401, "this endpoint takes the job's own key (Authorization: Bearer <key>), which this request lacks", "authentication_error");
      const route = CHANNEL.exec((req.url ?? "").split("?")[0]!);
      const llm = route ? this.channels.get(route[1]!) : undefined;
      if (req.method !== "POST" || llm === undefined) throw new HttpProblem(404, `no route ${req.method} ${req.url}: this endpoint serves POST <base URL>/chat/completions`, "not_found");
      const text = await readBody(req, limit);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new HttpProblem(400, "the body is not JSON");
      }
      const header = req.headers[ROLE_HEADER];
      const parsed = parseLoopbackRequest(body, Array.isArray(header) ? header[0] : header);
      if (!parsed.ok) throw new HttpProblem(400, parsed.message);
      let reply;
      try {
        reply = await llm.complete(parsed.request);
      } catch (error) {
        throw problemOf(error);
      }
      const n = ++this.replies;
      sendJson(res, 200, {
        id: `chatcmpl-trace-bench-${n}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: reply.model,
        choices: [{ index: 0, message: { role: "assistant", content: reply.content }, finish_reason: "stop", logprobs: null }],
        usage: reply.usage,
      });
    } catch (error) {
      if (res.headersSent) return void res.destroy();
      // A 413 is sent before the rest of an oversized body is read: the connection cannot be reused.
      if (error instanceof HttpProblem) {
        if (error.status === 413) res.setHeader("connection", "close");
        sendProblem(res, error);
      } else sendProblem(res, problemOf(error));
    }
  }
}
