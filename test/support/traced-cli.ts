/**
 * The built CLI run under the module-trace hook (test/support/module-trace/register.mjs): its
 * outcome, and the npm packages its process loaded, so a test can say which adapters a verb pays for.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { REPO_ROOT, tempDir } from "./cli.js";
import { runCliAsync, type CrashCliResult } from "./crash-harness.js";

const REGISTER = pathToFileURL(join(REPO_ROOT, "test", "support", "module-trace", "register.mjs")).href;

/** `.../node_modules/@scope/name/x.js` → `@scope/name`; the innermost node_modules names the package. */
export function packageOf(url: string): string | null {
  const path = url.startsWith("file:") ? fileURLToPath(url) : url;
  const at = path.lastIndexOf("/node_modules/");
  if (at < 0) return null;
  const [first, second] = path.slice(at + "/node_modules/".length).split("/");
  return first?.startsWith("@") ? `${first}/${second}` : (first ?? null);
}

export interface TracedCliResult extends CrashCliResult {
  /** Every package any thread of the process loaded a module of. */
  readonly packages: ReadonlySet<string>;
}

export async function runCliTracingModules(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<TracedCliResult> {
  const logFile = join(tempDir("trace-bench-modules-"), "modules.txt");
  const result = await runCliAsync(args, { cwd: REPO_ROOT, env: { ...env, TRACE_BENCH_MODULE_LOG: logFile }, timeoutMs: 60_000, nodeArgs: ["--import", REGISTER] });
  const urls = readFileSync(logFile, "utf8").split("\n").filter((line) => line !== "");
  return { ...result, packages: new Set(urls.map(packageOf).filter((name) => name !== null)) };
}
