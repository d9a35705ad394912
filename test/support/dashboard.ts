/**
 * The dashboard in tests: the built CLI's `trace-bench ui` as a real child process (on a free
 * port), plain HTTP requests to it, and a real headless Chromium (Debian's `chromium`, driven by
 * playwright-core; never a downloaded browser) with its screenshots kept under test-artifacts/.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { CLI, REPO_ROOT, runCli, tempDir } from "./cli.js";
import { isRunning, until } from "./processes.js";
import { singleRunDir } from "./run-dir.js";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
export const ARTIFACTS = join(REPO_ROOT, "test-artifacts", "ui");
/** With UI_SCREENSHOTS_TO_DOCS=1 the screenshots the README shows are refreshed from the tests. */
const DOCS_SCREENSHOTS = join(REPO_ROOT, "docs", "screenshots");

export interface RunningDashboard {
  /** The URL it printed (with `?token=` unless started with --no-token). */
  readonly url: string;
  readonly origin: string;
  /** The token every request needs (generated unless --token was given), or null with --no-token. */
  readonly token: string | null;
  readonly child: ChildProcess;
  /** `http` to this dashboard, carrying its token as a bearer header. */
  request(path: string, options?: HttpOptions): Promise<HttpReply>;
  output(): string;
  stop(): Promise<number | null>;
}

/** Starts `trace-bench ui --port 0 ...` in `cwd` and waits for the URL it prints. */
export async function startDashboard(options: { cwd: string; args?: readonly string[]; env?: NodeJS.ProcessEnv }): Promise<RunningDashboard> {
  const child = spawn(process.execPath, [CLI, "ui", "--port", "0", ...(options.args ?? [])], { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
  const started = await until(() => /Dashboard: (\S+)/.test(out) || child.exitCode !== null, 30_000);
  const url = /Dashboard: (\S+)/.exec(out)?.[1];
  if (!started || url === undefined) {
    child.kill("SIGKILL");
    throw new Error(`trace-bench ui did not start:\n${out}`);
  }
  const origin = new URL(url).origin;
  const token = new URL(url).searchParams.get("token");
  return {
    url,
    origin,
    token,
    child,
    request: (path, request = {}) => http(origin, path, { ...request, headers: { ...(token === null ? {} : { Authorization: `Bearer ${token}` }), ...request.headers } }),
    output: () => out,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

export interface HttpReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

export interface HttpOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** One HTTP request with the path sent as given (no URL normalisation, so `..` reaches the server). */
export function http(origin: string, path: string, options: HttpOptions = {}): Promise<HttpReply> {
  const { hostname, port } = new URL(origin);
  return new Promise((done, fail) => {
    const req = request({ host: hostname, port, path, method: options.method ?? "GET", headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", fail);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

export async function launchBrowser(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"] });
}

/**
 * Keeps a screenshot (of the page, or of one element) under test-artifacts/ui (and, for those the
 * README shows, docs/screenshots with UI_SCREENSHOTS_TO_DOCS=1).
 */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean; readme?: boolean; element?: Locator } = {}): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  if (options.element !== undefined) await options.element.screenshot({ path });
  else {
    await page.evaluate("window.scrollTo(0, 0)");
    await page.screenshot({ path, fullPage: options.fullPage ?? false });
  }
  if (options.readme === true && process.env.UI_SCREENSHOTS_TO_DOCS === "1") {
    mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
    copyFileSync(path, join(DOCS_SCREENSHOTS, `${name}.png`));
  }
  return path;
}

/** Waits until no process of `pids` runs any more (runs the page started end on their own). */
export async function waitForExit(pids: readonly number[], ms = 120_000): Promise<boolean> {
  return until(() => pids.every((pid) => !isRunning(pid)), ms, 100);
}

/** A stub config of `seeds` slow jobs (fixture:sleep: two agent calls of `delayMs` each), one at a time. */
export function slowConfig(seeds: readonly number[], delayMs: number): string {
  return `mode: stub\nseeds: [${seeds.join(", ")}]\nmax_workers: 1\ntasks:\n  - {id: fixture:sleep, eval_kwargs: {delay_ms: ${delayMs}}}\ntrainers:\n  - NoOpTrainer\n`;
}

/** A new working dir with `configs/smoke.yaml`, run once into `runs/`: the run's dir and its name under `runs/`. */
export async function workDirWithSmokeRun(): Promise<{ dir: string; runDir: string; rel: string }> {
  const dir = tempDir();
  mkdirSync(join(dir, "configs"));
  copyFileSync(join(REPO_ROOT, "configs", "smoke.yaml"), join(dir, "configs", "smoke.yaml"));
  const ran = await runCli(["run", "--config", "configs/smoke.yaml", "--runs-dir", "runs"], { cwd: dir });
  if (ran.code !== 0) throw new Error(`the smoke run failed (exit ${ran.code}):\n${ran.stderr}`);
  const runDir = singleRunDir(join(dir, "runs"));
  return { dir, runDir, rel: runDir.slice(join(dir, "runs").length + 1) };
}
