/**
 * The configs the launch page offers: run configs under the working directory (YAML files with a
 * top-level `tasks:` or `trainers:` key, outside run directories, test folders and what tools
 * keep), read, saved as new files (atomically, only there, never over an existing file) and
 * checked with `trace-bench validate --strict`, run as a child process on the editor's text so the
 * page shows exactly the messages the CLI prints.
 */
import { spawn } from "node:child_process";
import { existsSync, linkSync, mkdtempSync, readdirSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, sep } from "node:path";
import { EVENTS_DB } from "../events/log-database.js";
import type { ValidationPayload } from "./api-types.js";
import { CONFIG_EXTENSIONS, LaunchError } from "./launcher.js";
import { resolveInside } from "../fs/safe-path.js";

const SKIPPED_DIRS = new Set(["node_modules", "dist", "coverage"]);
/** Folders whose YAML files are a project's test data, not configs to launch. */
const TEST_DIRS = new Set(["test", "tests", "fixtures", "__fixtures__"]);
/** What makes a YAML file a run config: a top-level key only a config has (pricing tables, task `paras.yaml` have neither). */
const CONFIG_KEY = /^(?:tasks|trainers)[ \t]*:/m;
const MAX_CONFIGS = 500;
const MAX_DEPTH = 4;
export const MAX_CONFIG_BYTES = 1_000_000;
const VALIDATE_TIMEOUT_MS = 120_000;

/**
 * Run configs under `cwd` (relative, POSIX-style): `.yaml`/`.yml` files with a top-level `tasks:`
 * or `trainers:` key, outside dot folders, node_modules, dist, coverage, test folders, the runs dir
 * and any run directory elsewhere (a folder with an `events.db`: its config snapshot is not a config to edit).
 */
export function listConfigs(cwd: string, runsDir: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (found.length >= MAX_CONFIGS) return;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name.startsWith(".") || SKIPPED_DIRS.has(entry.name) || TEST_DIRS.has(entry.name) || path === runsDir || depth >= MAX_DEPTH) continue;
        if (existsSync(join(path, EVENTS_DB))) continue;
        walk(path, depth + 1);
      } else if (entry.isFile() && /\.ya?ml$/.test(entry.name) && isRunConfig(path)) {
        found.push(relative(cwd, path).split(sep).join("/"));
      }
    }
  };
  walk(cwd, 0);
  return found;
}

function isRunConfig(path: string): boolean {
  try {
    return statSync(path).size <= MAX_CONFIG_BYTES && CONFIG_KEY.test(readFileSync(path, "utf8"));
  } catch {
    return false;
  }
}

function checkedConfigPath(cwd: string, rel: string): string {
  const path = resolveInside(cwd, rel);
  if (!CONFIG_EXTENSIONS.some((ext) => path.endsWith(ext))) throw new LaunchError(`${rel}: a config is a .yaml, .yml or .json file`, 400);
  return path;
}

export function readConfig(cwd: string, rel: string): string {
  const path = checkedConfigPath(cwd, rel);
  if (statSync(path).size > MAX_CONFIG_BYTES) throw new LaunchError(`${rel} is larger than ${MAX_CONFIG_BYTES} bytes`, 400);
  return readFileSync(path, "utf8");
}

let saves = 0;

/**
 * Saves a YAML config the page edited as a new file: only a .yaml/.yml file outside dot folders,
 * node_modules and dist, and never over an existing file (the config it was opened from stays as
 * it was). Written to a temp file and linked to its name, which fails if the name is taken: the
 * file appears whole or not at all.
 */
export function saveConfig(cwd: string, rel: string, text: string): void {
  if (Buffer.byteLength(text) > MAX_CONFIG_BYTES) throw new LaunchError(`the config is larger than ${MAX_CONFIG_BYTES} bytes`, 400);
  const path = checkedConfigPath(cwd, rel);
  const folders = relative(cwd, path).split(sep).slice(0, -1);
  if (!/\.ya?ml$/.test(path) || folders.some((f) => f.startsWith(".") || SKIPPED_DIRS.has(f))) throw new LaunchError(`${rel}: the page saves only YAML configs outside dot folders, node_modules and dist`, 400);
  const exists = () => new LaunchError(`${rel} exists; the page saves a new file: pick a name that is not taken`, 409);
  if (existsSync(path)) throw exists();
  mkdirSync(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${saves++}`);
  try {
    writeFileSync(temp, text, { flag: "wx" });
    linkSync(temp, path);
  } catch (error) {
    if ((error as { code?: unknown }).code === "EEXIST") throw exists();
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

/**
 * `validate --strict --json` on `text`, as if it were the file `rel`: the text goes to a temp
 * folder (with the manifest --strict writes), and its path is shown as `rel` in the messages.
 */
export async function validateConfigText(options: { cwd: string; cli: string; env: NodeJS.ProcessEnv; runArgs: readonly string[] }, rel: string, text: string): Promise<ValidationPayload> {
  const dir = mkdtempSync(join(tmpdir(), "trace-bench-ui-validate-"));
  const name = basename(rel) || "config.yaml";
  const path = join(dir, CONFIG_EXTENSIONS.some((ext) => name.endsWith(ext)) ? name : `${name}.yaml`);
  try {
    writeFileSync(path, text);
    const { code, stdout, stderr } = await runCli(options, ["validate", "--config", path, "--strict", "--json", "--runs-dir", join(dir, "runs"), ...options.runArgs]);
    const shown = (line: string) => line.split(path).join(rel).split(dir).join(".");
    let report: { ok?: boolean; exit_code?: number; checks?: { verdict: string; text: string }[]; problems?: string[]; jobs?: unknown[] } = {};
    try {
      report = JSON.parse(stdout) as typeof report;
    } catch {
      // Not JSON: a crash; its stderr says why.
    }
    // The manifest --strict writes went to the temp folder, which is gone: not worth a line.
    const checks = report.checks?.filter((c) => !c.text.startsWith("manifest written: "));
    const messages = checks?.map((c) => `[${c.verdict}] ${c.text}`) ?? report.problems ?? stderr.split("\n").filter((l) => l.trim() !== "");
    return { ok: code === 0, exit_code: code, messages: messages.map(shown), jobs: report.jobs?.length ?? 0 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runCli(options: { cwd: string; cli: string; env: NodeJS.ProcessEnv }, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [options.cli, ...args], { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"], timeout: VALIDATE_TIMEOUT_MS });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", fail);
    child.on("close", (code) => done({ code: code ?? 2, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") }));
  });
}
