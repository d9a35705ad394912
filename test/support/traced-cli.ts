/**
 * The built CLI run under the module-trace hook (test/support/module-trace/register.mjs): its
 * outcome, and the npm packages its process loaded, so a test can say which adapters a verb pays for.
 * The CLI is a bundle (dist/cli, scripts/bundle-cli.mjs): a loaded bundle file counts as every
 * source module its metafile says it holds, so a package bundled into a chunk is seen when that
 * chunk loads.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
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

/** Bundle output (relative to the repo) → the source modules it holds (relative paths). */
function bundledInputs(): Map<string, string[]> {
  const meta = JSON.parse(readFileSync(join(REPO_ROOT, "dist", "cli", "metafile.json"), "utf8")) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
  return new Map(Object.entries(meta.outputs).map(([out, o]) => [out, Object.keys(o.inputs)]));
}

/** The modules behind a loaded URL: a bundle file's inputs, or the URL itself. */
function sourcesOf(url: string, bundle: Map<string, string[]>): string[] {
  if (!url.startsWith("file:")) return [url];
  const inputs = bundle.get(relative(REPO_ROOT, fileURLToPath(url)));
  return inputs === undefined ? [url] : inputs.map((input) => join(REPO_ROOT, input));
}

export interface TracedCliResult extends CrashCliResult {
  /** Every package any thread of the process loaded a module of. */
  readonly packages: ReadonlySet<string>;
}

export async function runCliTracingModules(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<TracedCliResult> {
  const logFile = join(tempDir("trace-bench-modules-"), "modules.txt");
  const result = await runCliAsync(args, { cwd: REPO_ROOT, env: { ...env, TRACE_BENCH_MODULE_LOG: logFile }, timeoutMs: 60_000, nodeArgs: ["--import", REGISTER] });
  const urls = readFileSync(logFile, "utf8").split("\n").filter((line) => line !== "");
  const bundle = bundledInputs();
  const modules = urls.flatMap((url) => sourcesOf(url, bundle));
  return { ...result, packages: new Set(modules.map(packageOf).filter((name) => name !== null)) };
}
