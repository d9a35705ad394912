/**
 * The dashboard's HTTP server (plain node:http): the page built into dist/ui, a JSON API over the
 * run directories, server-sent events, and launching/cancelling runs.
 *
 * Safety: with a token every request must carry it (cookie set from `/?token=...`, or an
 * `Authorization: Bearer` header); on a loopback address without one, requests must name that
 * address in their Host header (a page elsewhere cannot reach it through DNS rebinding), and
 * state-changing requests must be JSON POSTs from the dashboard's own origin. Files are served
 * only from inside the runs dir; configs only from under the working directory; every body passes
 * the secret filter.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { timingSafeEqual } from "node:crypto";
import { extname, join } from "node:path";
import { packageRoot } from "../fs/package-root.js";
import { listConfigs, readConfig, saveConfig, validateConfigText } from "./config-files.js";
import { LaunchError, Launcher } from "./launcher.js";
import { LiveFeed } from "./live-feed.js";
import { machineGraph } from "./machine-graph.js";
import { jobPayload, runPayload, tokensPayload, UnknownJobError } from "./run-views.js";
import { comparePayload, CompareQueryError } from "./compare-view.js";
import { RunsIndex, UnknownRunError } from "./runs-index.js";
import { OutsideRootError, resolveInside } from "../fs/safe-path.js";
import { SecretFilter } from "./secret-filter.js";

export interface DashboardOptions {
  /** Absolute runs dir. */
  readonly runsDir: string;
  /** Absolute working directory: configs are launched only from under it. */
  readonly cwd: string;
  readonly host: string;
  readonly port: number;
  readonly token: string | null;
  readonly env: NodeJS.ProcessEnv;
  /** The CLI launched runs start (bin/trace-bench.js). */
  readonly cli?: string;
  /** The built page (dist/ui). */
  readonly assetsDir?: string;
  /** Flags every launched run and every validation gets (`--root DIR` from `ui --tasks-root`). */
  readonly runArgs?: readonly string[];
}

const TOKEN_COOKIE = "trace_bench_ui";
const MAX_BODY_BYTES = 2_000_000;
/** A body up to this size is read to its end to answer 413; beyond, the connection is cut. */
const MAX_DRAINED_BODY_BYTES = 64_000_000;
const FILE_LIMIT_BYTES = 20_000_000;
const TEXT_TYPES: Record<string, string> = {
  ".json": "application/json",
  ".jsonl": "text/plain",
  ".csv": "text/plain",
  ".yaml": "text/plain",
  ".yml": "text/plain",
  ".log": "text/plain",
  ".txt": "text/plain",
  ".md": "text/plain",
  ".py": "text/plain",
  ".js": "text/plain",
  ".ts": "text/plain",
};
const ASSET_TYPES: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".map": "application/json", ".svg": "image/svg+xml", ".png": "image/png" };
const PAGE_POLICY = "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

export const isLoopback = (host: string) => host === "localhost" || host === "::1" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class Dashboard {
  readonly server: Server;
  private readonly index: RunsIndex;
  private readonly launcher: Launcher;
  private readonly feed: LiveFeed;
  private readonly filter: SecretFilter;
  private readonly cli: string;
  private readonly assetsDir: string;
  private port = 0;

  constructor(private readonly options: DashboardOptions) {
    this.cli = options.cli ?? join(packageRoot(), "bin", "trace-bench.js");
    this.assetsDir = options.assetsDir ?? join(packageRoot(), "dist", "ui");
    this.filter = new SecretFilter(options.env);
    this.index = new RunsIndex(options.runsDir);
    this.launcher = new Launcher({ cwd: options.cwd, runsDir: options.runsDir, cli: this.cli, env: options.env, runArgs: options.runArgs ?? [] }, this.index);
    this.feed = new LiveFeed(this.index, this.filter);
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => this.fail(response, error));
    });
  }

  /** Listens; resolves with the URL to open (with the token, when one is required). */
  listen(): Promise<string> {
    return new Promise((done, fail) => {
      this.server.once("error", fail);
      this.server.listen(this.options.port, this.options.host, () => {
        const address = this.server.address();
        this.port = typeof address === "object" && address !== null ? address.port : this.options.port;
        const host = this.options.host.includes(":") ? `[${this.options.host}]` : this.options.host;
        done(`http://${host}:${this.port}/${this.options.token === null ? "" : `?token=${encodeURIComponent(this.options.token)}`}`);
      });
    });
  }

  close(): Promise<void> {
    this.feed.close();
    this.index.close();
    this.server.closeAllConnections();
    return new Promise((done) => this.server.close(() => done()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://dashboard.invalid");
    this.checkHost(request);
    if (!this.authorized(request)) {
      if (url.searchParams.has("token") && this.tokenMatches(url.searchParams.get("token")!)) {
        // The URL printed at start: keep the token in a cookie, drop it from the address bar.
        response.writeHead(303, { Location: "/", "Set-Cookie": `${TOKEN_COOKIE}=${encodeURIComponent(this.options.token!)}; HttpOnly; SameSite=Strict; Path=/` });
        response.end();
        return;
      }
      throw new HttpError(401, "this dashboard needs its token: open the URL trace-bench ui printed (…/?token=…)");
    }
    if (request.method === "POST") return this.handlePost(request, response, url);
    if (request.method !== "GET" && request.method !== "HEAD") throw new HttpError(405, `${request.method} is not supported`);
    const param = (name: string) => {
      const value = url.searchParams.get(name);
      if (value === null) throw new HttpError(400, `missing ?${name}=`);
      return value;
    };
    switch (url.pathname) {
      case "/api/runs":
        this.index.discover();
        return this.json(response, this.index.payload());
      case "/api/run":
        return this.json(response, runPayload(this.index.get(param("run"))));
      case "/api/job":
        return this.json(response, jobPayload(this.index.get(param("run")), param("job")));
      case "/api/tokens":
        return this.json(response, tokensPayload(this.index.get(param("run"))));
      case "/api/compare":
        return this.json(response, comparePayload(this.index.get(param("run")), param("by"), param("a"), param("b")));
      case "/api/machine":
        return this.json(response, machineGraph());
      case "/api/file":
        return this.file(response, param("path"));
      case "/api/stream": {
        const rel = url.searchParams.get("run");
        this.index.discover();
        return this.feed.subscribe(response, rel, rel === null ? null : this.index.get(rel));
      }
      case "/api/configs":
        return this.json(response, { cwd: this.options.cwd, runs_dir: this.options.runsDir, configs: listConfigs(this.options.cwd, this.options.runsDir) });
      case "/api/config":
        return this.json(response, { path: param("path"), text: readConfig(this.options.cwd, param("path")) });
      case "/api/launch":
        return this.json(response, this.launcher.status(param("id")));
      default:
        return this.asset(response, url.pathname);
    }
  }

  private async handlePost(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    // A form or a page elsewhere cannot send JSON here without a CORS preflight, which this server never grants.
    if (!(request.headers["content-type"] ?? "").startsWith("application/json")) throw new HttpError(415, "send application/json");
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== `http://${request.headers.host}`) throw new HttpError(403, `requests from ${origin} are refused`);
    const body = await readJson(request);
    const text = (name: string) => {
      const value = body[name];
      if (typeof value !== "string") throw new HttpError(400, `'${name}' must be a string`);
      return value;
    };
    const runParam = () => {
      const value = url.searchParams.get("run");
      if (value === null) throw new HttpError(400, "missing ?run=");
      return this.index.get(value);
    };
    switch (url.pathname) {
      case "/api/config/validate":
        return this.json(response, await validateConfigText({ cwd: this.options.cwd, cli: this.cli, env: this.options.env, runArgs: this.options.runArgs ?? [] }, text("path"), text("text")));
      case "/api/config/save":
        saveConfig(this.options.cwd, text("path"), text("text"));
        return this.json(response, { saved: text("path") });
      case "/api/launch":
        return this.json(response, this.launcher.launch({
          config: text("config"),
          ...(typeof body.runs_subdir === "string" && body.runs_subdir !== "" ? { runsSubdir: body.runs_subdir } : {}),
          ...(body.max_workers !== undefined && body.max_workers !== null && body.max_workers !== "" ? { maxWorkers: Number(body.max_workers) } : {}),
        }));
      case "/api/run/cancel":
        return this.json(response, this.launcher.cancel(runParam()));
      case "/api/job/cancel": {
        const job = url.searchParams.get("job");
        if (job === null) throw new HttpError(400, "missing ?job=");
        return this.json(response, this.launcher.cancelJob(runParam(), job));
      }
      case "/api/run/resume": {
        const mode = text("mode");
        if (mode !== "auto" && mode !== "failed") throw new HttpError(400, "mode must be auto or failed");
        return this.json(response, this.launcher.resume(runParam(), mode));
      }
      default:
        throw new HttpError(404, `no ${url.pathname}`);
    }
  }

  private checkHost(request: IncomingMessage): void {
    if (this.options.token !== null || !isLoopback(this.options.host)) return;
    const allowed = [`127.0.0.1:${this.port}`, `localhost:${this.port}`, `[::1]:${this.port}`, `${this.options.host}:${this.port}`];
    if (!allowed.includes(request.headers.host ?? "")) throw new HttpError(403, `unexpected Host header '${request.headers.host ?? ""}'`);
  }

  private tokenMatches(given: string): boolean {
    const expected = Buffer.from(this.options.token ?? "");
    const actual = Buffer.from(given);
    return expected.length > 0 && actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  private authorized(request: IncomingMessage): boolean {
    if (this.options.token === null) return true;
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    if (bearer !== undefined && this.tokenMatches(bearer)) return true;
    const cookie = (request.headers.cookie ?? "").split(/;\s*/).find((c) => c.startsWith(`${TOKEN_COOKIE}=`));
    if (cookie !== undefined && this.tokenMatches(decodeURIComponent(cookie.slice(TOKEN_COOKIE.length + 1)))) return true;
    return false;
  }

  private json(response: ServerResponse, value: unknown): void {
    const body = this.filter.json(value);
    response.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" });
    response.end(body);
  }

  /** A file of the runs dir (`rel` relative to it), as plain text or a download; never a page that runs. */
  private file(response: ServerResponse, rel: string): void {
    const path = resolveInside(this.options.runsDir, rel);
    if (!existsSync(path) || !statSync(path).isFile()) throw new HttpError(404, `no file '${rel}' in the runs dir`);
    if (statSync(path).size > FILE_LIMIT_BYTES) throw new HttpError(413, `'${rel}' is larger than ${FILE_LIMIT_BYTES} bytes; open it from disk`);
    const type = TEXT_TYPES[extname(path)];
    response.writeHead(200, {
      "Content-Type": `${type ?? "application/octet-stream"}${type === undefined ? "" : "; charset=utf-8"}`,
      ...(type === undefined ? { "Content-Disposition": "attachment" } : {}),
      "Content-Security-Policy": "sandbox; default-src 'none'",
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "no-store",
    });
    response.end(this.filter.bytes(readFileSync(path)));
  }

  /** The page: index.html for every route the page handles itself, else a file of dist/ui by exact name. */
  private asset(response: ServerResponse, pathname: string): void {
    const names = existsSync(this.assetsDir) ? readdirSync(this.assetsDir) : [];
    if (!names.includes("index.html")) throw new HttpError(503, `the dashboard page is not built (${this.assetsDir}); run 'npm run build'`);
    const name = pathname.startsWith("/assets/") ? pathname.slice("/assets/".length) : pathname === "/" || pathname === "/index.html" ? "index.html" : null;
    if (name === null || !names.includes(name)) throw new HttpError(404, `no ${pathname}`);
    response.writeHead(200, {
      "Content-Type": `${ASSET_TYPES[extname(name)] ?? "application/octet-stream"}; charset=utf-8`,
      "Content-Security-Policy": PAGE_POLICY,
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
      "Cache-Control": "no-cache",
    });
    response.end(readFileSync(join(this.assetsDir, name)));
  }

  private fail(response: ServerResponse, error: unknown): void {
    const status =
      error instanceof HttpError
        ? error.status
        : error instanceof OutsideRootError
          ? 403
          : error instanceof UnknownRunError || error instanceof UnknownJobError
            ? 404
            : error instanceof LaunchError
              ? error.status
              : error instanceof CompareQueryError
                ? 400
                : (error as NodeJS.ErrnoException).code === "ENOENT"
                  ? 404
                  : 500;
    const message = error instanceof Error ? error.message : String(error);
    if (response.headersSent) {
      response.end();
      return;
    }
    response.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "X-Content-Type-Options": "nosniff" });
    response.end(this.filter.json({ error: message.split("\n")[0] }));
  }
}

function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const tooLarge = () => new HttpError(413, `the request body is larger than ${MAX_BODY_BYTES} bytes`);
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else if (size > MAX_DRAINED_BODY_BYTES) {
        fail(tooLarge());
        request.destroy();
      }
      // Between the two: read on and drop it, so the client gets its 413 rather than a reset.
    });
    request.on("end", () => {
      if (size > MAX_BODY_BYTES) return fail(tooLarge());
      try {
        const value = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
        if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("not an object");
        done(value as Record<string, unknown>);
      } catch {
        fail(new HttpError(400, "the body must be a JSON object"));
      }
    });
    request.on("error", fail);
  });
}
