/**
 * The configs the launch page offers: YAML/JSON files under the working directory, read, saved
 * (atomically, only there) and checked with `trace-bench validate --strict`, run as a child
 * process on the editor's text so the page shows exactly the messages the CLI prints.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative, sep } from "node:path";
import { writeFileAtomic } from "../fs/atomic-write.js";
import type { ValidationPayload } from "./api-types.js";
import { CONFIG_EXTENSIONS, LaunchError } from "./launcher.js";
import { resolveInside } from "../fs/safe-path.js";

const SKIPPED_DIRS = new Set(["node_modules", "dist", "coverage"]);
const MAX_CONFIGS = 500;
const MAX_DEPTH = 4;
export const MAX_CONFIG_BYTES = 1_000_000;
const VALIDATE_TIMEOUT_MS = 120_000;

/** Config files under `cwd` (relative, POSIX-style), skipping dot folders, node_modules and the runs dir. */
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
        if (entry.name.startsWith(".") || SKIPPED_DIRS.has(entry.name) || path === runsDir || depth >= MAX_DEPTH) continue;
        walk(path, depth + 1);
      } else if (entry.isFile() && CONFIG_EXTENSIONS.some((ext) => entry.name.endsWith(ext)) && !entry.name.endsWith(".json")) {
        found.push(relative(cwd, path).split(sep).join("/"));
      }
    }
  };
  walk(cwd, 0);
  return found;
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

/** Saves a YAML config the page edited: only a .yaml/.yml file outside dot folders, node_modules and dist. */
export function saveConfig(cwd: string, rel: string, text: string): void {
  if (Buffer.byteLength(text) > MAX_CONFIG_BYTES) throw new LaunchError(`the config is larger than ${MAX_CONFIG_BYTES} bytes`, 400);
  const path = checkedConfigPath(cwd, rel);
  const folders = relative(cwd, path).split(sep).slice(0, -1);
  if (!/\.ya?ml$/.test(path) || folders.some((f) => f.startsWith(".") || SKIPPED_DIRS.has(f))) throw new LaunchError(`${rel}: the page saves only YAML configs outside dot folders, node_modules and dist`, 400);
  writeFileAtomic(path, text);
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
