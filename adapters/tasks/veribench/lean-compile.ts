/**
 * Compiles one Lean candidate: written as `Candidate.lean` into a fresh temporary Lake project and
 * checked by the toolchain in a child process of its own process group, killed (with anything it
 * started) at the time limit or when the job is cancelled. Lean runs `#eval` code while it checks,
 * so the child gets no secrets: only the locale, PATH and where elan keeps its toolchains.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { candidateEnv } from "../../sandbox/sandbox-env.js";
import type { LeanToolchain } from "./lean-toolchain.js";

export const CANDIDATE_FILE = "Candidate.lean";

export type LeanCompileResult =
  | { readonly kind: "finished"; readonly exitCode: number | null; readonly output: string }
  | { readonly kind: "timeout"; readonly seconds: number };

export interface LeanCompileOptions {
  readonly timeoutSeconds: number;
  readonly signal?: AbortSignal;
  readonly env?: NodeJS.ProcessEnv;
}

function leanEnv(parent: NodeJS.ProcessEnv, scratch: string): Record<string, string> {
  // HOME is the scratch folder, so elan is told where its toolchains are.
  const elanHome = parent.ELAN_HOME ?? join(parent.HOME ?? homedir(), ".elan");
  const extra: Record<string, string> = { ELAN_HOME: elanHome };
  for (const name of ["ELAN_TOOLCHAIN", "LEAN_PATH", "LEAN_SYSROOT"] as const) if (parent[name] !== undefined) extra[name] = parent[name]!;
  return candidateEnv(parent, { scratch, path: parent.PATH ?? "", extra });
}

export async function compileLean(toolchain: LeanToolchain, source: string, options: LeanCompileOptions): Promise<LeanCompileResult> {
  options.signal?.throwIfAborted();
  const dir = mkdtempSync(join(tmpdir(), "trace-bench-lean-"));
  try {
    writeFileSync(join(dir, "lakefile.toml"), 'name = "candidate"\n');
    writeFileSync(join(dir, CANDIDATE_FILE), source);
    return await new Promise<LeanCompileResult>((resolve, reject) => {
      const child = spawn(toolchain.command, [...toolchain.args, CANDIDATE_FILE], {
        cwd: dir,
        env: leanEnv(options.env ?? process.env, dir),
        stdio: ["ignore", "pipe", "pipe"],
        // Its own process group: `lake env lean` starts lean, and a kill must reach both.
        detached: true,
      });
      const chunks: Buffer[] = [];
      child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
      child.stderr.on("data", (chunk: Buffer) => chunks.push(chunk));
      let outcome: { kind: "timeout" } | { kind: "aborted"; reason: unknown } | null = null;
      const killGroup = () => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          child.kill("SIGKILL");
        }
      };
      const timer = setTimeout(() => {
        outcome ??= { kind: "timeout" };
        killGroup();
      }, options.timeoutSeconds * 1000);
      const onAbort = () => {
        outcome ??= { kind: "aborted", reason: options.signal!.reason };
        killGroup();
      };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      const done = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
      };
      child.on("error", (error) => {
        done();
        reject(new Error(`cannot run ${toolchain.label}: ${error.message}`));
      });
      child.on("close", (exitCode) => {
        done();
        if (outcome?.kind === "aborted") reject(outcome.reason);
        else if (outcome?.kind === "timeout") resolve({ kind: "timeout", seconds: options.timeoutSeconds });
        else resolve({ kind: "finished", exitCode, output: Buffer.concat(chunks).toString("utf8") });
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
