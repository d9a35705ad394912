/**
 * `trace-bench ui [--runs-dir runs] [--port 7860] [--host 127.0.0.1] [--token T | --no-token]`: the
 * local dashboard. It reads the run directories (never taking a writer lock), launches runs as
 * processes of their own, and serves a page built at `npm run build` (no CDN, nothing hosted).
 * Like a notebook server it requires a token by default (a random one, printed in the URL): the
 * page launches processes, so another local user must not reach it. `--no-token` is for loopback
 * addresses only, and a non-loopback address needs a token long enough not to be guessed. Runs
 * until Ctrl-C; the runs it started go on.
 */
import { randomBytes } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { ParsedArgs, VerbSpec } from "./args.js";
import { Dashboard, isLoopback } from "../ui/dashboard-server.js";

/** A token another machine could reach must not be guessable: the generated one has 48 hex digits. */
const MIN_REMOTE_TOKEN_CHARS = 16;

export const spec: VerbSpec = {
  name: "ui",
  summary: "Serve the local dashboard: browse runs, results, charts and job machines; launch, watch, cancel and resume runs.",
  flags: {
    "runs-dir": { type: "string", value: "DIR", aliases: ["output-dir"], description: "Runs root to show and launch into (default: runs)." },
    port: { type: "string", value: "PORT", description: "Port to listen on (default: 7860; 0 picks a free one)." },
    host: { type: "string", value: "HOST", description: "Address to bind (default: 127.0.0.1). Any other than a loopback address is reachable from other machines." },
    token: { type: "string", value: "T", description: `Secret every request must carry (default: a random one; open the printed URL once: it sets a cookie). At least ${MIN_REMOTE_TOKEN_CHARS} characters with a non-loopback --host.` },
    "no-token": { type: "boolean", description: "Serve without a token (loopback --host only): any local user's browser or process can then use the dashboard." },
    "tasks-root": { type: "string", value: "DIR", description: "LLM4AD tasks root for the runs it launches and the configs it validates (passed to them as --root)." },
    share: { type: "boolean", description: "Not supported: the original's public Gradio link. Use --host with --token." },
  },
};

export async function execute(args: ParsedArgs): Promise<number> {
  if (args.flags.share === true) {
    process.stderr.write("trace-bench: --share (a public link) is not offered: the dashboard can launch runs; bind --host with --token to reach it from another machine\n");
    return 2;
  }
  const runsDir = resolve((args.flags["runs-dir"] as string | undefined) ?? "runs");
  const tasksRoot = args.flags["tasks-root"] as string | undefined;
  const host = (args.flags.host as string | undefined) ?? "127.0.0.1";
  const given = args.flags.token as string | undefined;
  const noToken = args.flags["no-token"] === true;
  const portText = (args.flags.port as string | undefined) ?? "7860";
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) {
    process.stderr.write(`trace-bench: --port must be a port number (0-65535), got '${portText}'\n`);
    return 2;
  }
  if (noToken && given !== undefined) {
    process.stderr.write("trace-bench: --no-token and --token contradict each other; pass one of them\n");
    return 2;
  }
  if (noToken && !isLoopback(host)) {
    process.stderr.write(`trace-bench: --no-token is refused with --host ${host}, which other machines can reach: drop --no-token (a token is generated), or bind 127.0.0.1\n`);
    return 2;
  }
  if (given === "") {
    process.stderr.write("trace-bench: --token is empty; pass a secret, drop --token to get a generated one, or pass --no-token (loopback only)\n");
    return 2;
  }
  if (given !== undefined && given.length < MIN_REMOTE_TOKEN_CHARS && !isLoopback(host)) {
    process.stderr.write(`trace-bench: --token is ${given.length} characters, too short for --host ${host}, which other machines can reach: pass at least ${MIN_REMOTE_TOKEN_CHARS} (e.g. --token "$(openssl rand -hex 16)"), or drop --token to get a generated one\n`);
    return 2;
  }
  const token = noToken ? null : (given ?? randomBytes(24).toString("hex"));
  if (existsSync(runsDir) && !statSync(runsDir).isDirectory()) {
    process.stderr.write(`trace-bench: --runs-dir ${runsDir} is not a directory\n`);
    return 2;
  }
  if (tasksRoot !== undefined && !(existsSync(tasksRoot) && statSync(tasksRoot).isDirectory())) {
    process.stderr.write(`trace-bench: --tasks-root ${tasksRoot} is not a directory\n`);
    return 2;
  }
  const dashboard = new Dashboard({ runsDir, cwd: process.cwd(), host, port, token, env: process.env, ...(tasksRoot !== undefined ? { runArgs: ["--root", resolve(tasksRoot)] } : {}) });
  let url: string;
  try {
    url = await dashboard.listen();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    process.stderr.write(`trace-bench: cannot listen on ${host}:${port} (${code ?? String(error)})${code === "EADDRINUSE" ? "; pick another --port" : ""}\n`);
    return 2;
  }
  process.stdout.write(`Dashboard: ${url}\nRuns dir: ${runsDir}\nPress Ctrl-C to stop (runs started from the page go on).\n`);
  await new Promise<void>((done) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      void dashboard.close().then(done);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  return 0;
}
